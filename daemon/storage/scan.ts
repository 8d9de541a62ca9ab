import fs from 'node:fs';
import type { Envelope } from '../../lib/wire.js';
import { GZ, readStored } from './compressed.js';

// Reading NDJSON files back: the last seq, a replay from an offset, a torn tail.

const CHUNK = 64 * 1024;

/** What a scan of a file found: its envelopes from the offset and where whole lines end. */
export interface ScanResult {
  /** Byte offset just after the last whole line. */
  end: number;
  /** Bytes after `end` that form no whole line (a torn tail), 0 when the file is whole. */
  tornBytes: number;
  /** Lines that were not valid envelopes (skipped), with their byte offsets. */
  bad: number[];
}

/**
 * Call `onEnvelope` for every whole line from `offset` on, in file order, and report where
 * the whole lines end. A line that does not parse as an envelope is skipped and reported.
 */
export function scanFile(file: string, offset: number, onEnvelope: (env: Envelope, line: string) => void): ScanResult {
  if (file.endsWith(GZ)) {
    // a compressed file is whole (verified before it was put in place): read it at once
    const data = readStored(file);
    return scanSource({ size: data.length, read: (buf, len, pos) => data.copy(buf, 0, pos, pos + len) }, offset, onEnvelope);
  }
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    return scanSource({ size, read: (buf, len, pos) => fs.readSync(fd, buf, 0, len, pos) }, offset, onEnvelope);
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes to scan: a length, and a read of `len` bytes at `pos` into `buf`. */
interface Source {
  size: number;
  read(buf: Buffer, len: number, pos: number): number;
}

function scanSource(source: Source, offset: number, onEnvelope: (env: Envelope, line: string) => void): ScanResult {
  const { size } = source;
  const buf = Buffer.allocUnsafe(CHUNK);
  let pos = Math.min(offset, size);
  let carry = Buffer.alloc(0);
  let carryStart = pos;
  const bad: number[] = [];
  while (pos < size) {
    const n = source.read(buf, Math.min(CHUNK, size - pos), pos);
    if (n <= 0) break;
    pos += n;
    const data = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
    let start = 0;
    for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
      const line = data.toString('utf8', start, nl);
      const env = parseEnvelope(line);
      if (env) onEnvelope(env, line);
      else if (line.trim() !== '') bad.push(carryStart + start);
      start = nl + 1;
    }
    carry = Buffer.from(data.subarray(start));
    carryStart += start;
  }
  return { end: carryStart, tornBytes: carry.length, bad };
}

/** The seq of the last whole envelope line of a file, or 0 (reads only the tail). */
export function lastSeq(file: string): number {
  if (file.endsWith(GZ)) {
    let seq = 0;
    scanFile(file, 0, (env) => { seq = env.seq; });
    return seq;
  }
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    let end = fs.fstatSync(fd).size;
    let tail = '';
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const buf = Buffer.allocUnsafe(end - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      tail = buf.toString('utf8') + tail;
      end = start;
      const lines = tail.split('\n');
      // the last element is after the final newline (empty or torn); earlier ones may be whole
      for (let i = lines.length - 2; i >= (end > 0 ? 1 : 0); i--) {
        const env = parseEnvelope(lines[i]!);
        if (env) return env.seq;
      }
    }
    return 0;
  } finally {
    fs.closeSync(fd);
  }
}

/** Cut a torn final line off a file; returns the offset it was cut at, or undefined. */
export function cutTornTail(file: string, scan: ScanResult): number | undefined {
  if (scan.tornBytes === 0 || file.endsWith(GZ)) return undefined;
  fs.truncateSync(file, scan.end);
  return scan.end;
}

/** Parse one line as an envelope, or undefined when it is not one. */
export function parseEnvelope(line: string): Envelope | undefined {
  if (line.length === 0) return undefined;
  try {
    const v = JSON.parse(line) as Envelope;
    if (v && typeof v === 'object' && Number.isSafeInteger(v.seq) && typeof v.type === 'string' && typeof v.ts === 'string') return v;
  } catch { /* not JSON */ }
  return undefined;
}
