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
  return scanLines(file, offset, (line) => {
    const env = parseEnvelope(line);
    if (env) onEnvelope(env, line);
    return env !== undefined || line.trim() === '';
  });
}

/**
 * The highest seq of any whole line of a file (0 for none or a missing file), and where its
 * whole lines end. Reads every line, as a file of the original service restarts its seq
 * (1, 2, 3, 1, 2): its last line need not hold the highest.
 */
export function maxSeq(file: string): { seq: number; scan: ScanResult | undefined } {
  if (!fs.existsSync(file)) return { seq: 0, scan: undefined };
  let seq = 0;
  const scan = scanLines(file, 0, (line) => {
    // Meridian's lines (and the original's) start with the seq: no need to parse the rest
    const fast = LEADING_SEQ.exec(line);
    const n = fast ? Number(fast[1]) : parseEnvelope(line)?.seq;
    if (n !== undefined && n > seq) seq = n;
    return n !== undefined || line.trim() === '';
  });
  return { seq, scan };
}

const LEADING_SEQ = /^\{"seq":(\d{1,15}),/;

/** Bytes to scan: a length, and a read of `len` bytes at `pos` into `buf`. */
interface Source {
  size: number;
  read(buf: Buffer, len: number, pos: number): number;
}

/**
 * Call `onLine` for every whole line from `offset` on; it answers whether the line was usable
 * (else reported in `bad`). A `.gz` file is whole (verified before it was put in place): it
 * is read at once.
 */
export function scanLines(file: string, offset: number, onLine: (line: string) => boolean): ScanResult {
  if (file.endsWith(GZ)) {
    const data = readStored(file);
    return scanSource({ size: data.length, read: (buf, len, pos) => data.copy(buf, 0, pos, pos + len) }, offset, onLine);
  }
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    return scanSource({ size, read: (buf, len, pos) => fs.readSync(fd, buf, 0, len, pos) }, offset, onLine);
  } finally {
    fs.closeSync(fd);
  }
}

function scanSource(source: Source, offset: number, onLine: (line: string) => boolean): ScanResult {
  const { size } = source;
  const buf = Buffer.allocUnsafe(CHUNK);
  let pos = Math.min(offset, size);
  // the start of a line longer than a chunk, kept in pieces (joined once, when it ends)
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let lineStart = pos;
  const bad: number[] = [];
  while (pos < size) {
    const n = source.read(buf, Math.min(CHUNK, size - pos), pos);
    if (n <= 0) break;
    const chunkAt = pos;
    pos += n;
    const data = buf.subarray(0, n);
    let start = 0;
    for (let nl = data.indexOf(10, start); nl !== -1; nl = data.indexOf(10, start)) {
      const line = carry.length === 0 ? data.toString('utf8', start, nl)
        : Buffer.concat([...carry, data.subarray(start, nl)]).toString('utf8');
      if (!onLine(line)) bad.push(lineStart);
      carry = [];
      carryBytes = 0;
      start = nl + 1;
      lineStart = chunkAt + start;
    }
    if (start < n) {
      carry.push(Buffer.from(data.subarray(start)));
      carryBytes += n - start;
    }
  }
  return { end: lineStart, tornBytes: carryBytes, bad };
}

/** The seq of the last whole envelope line of a file (before byte `end`, default its end), or 0 (reads only the tail). */
export function lastSeq(file: string, end?: number): number {
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
    end = Math.min(end ?? Infinity, fs.fstatSync(fd).size);
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

/** The first whole envelope line of a file, parsed; undefined when there is none in its first 64 KiB. */
export function firstEnvelope(file: string): Envelope | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    const text = buf.toString('utf8', 0, fs.readSync(fd, buf, 0, CHUNK, 0));
    const nl = text.indexOf('\n');
    return nl === -1 ? undefined : parseEnvelope(text.slice(0, nl));
  } finally {
    fs.closeSync(fd);
  }
}

/** Where the whole lines of a file of `size` bytes end (just after its last newline; 0 for none). */
export function wholeLinesEnd(file: string, size: number): number {
  const fd = fs.openSync(file, 'r');
  try {
    const last = Buffer.alloc(1);
    if (fs.readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a) return size;
    const buf = Buffer.allocUnsafe(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = fs.readSync(fd, buf, 0, end - start, start);
      const at = buf.subarray(0, n).lastIndexOf(0x0a);
      if (at !== -1) return start + at + 1;
      end = start;
    }
    return 0;
  } finally {
    fs.closeSync(fd);
  }
}

/** Cut a torn final line off a file; returns the offset it was cut at, or undefined. */
export function cutTornTail(file: string, scan: ScanResult): number | undefined {
  if (scan.tornBytes === 0) return undefined;
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
