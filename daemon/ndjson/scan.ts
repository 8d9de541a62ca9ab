import fs from 'node:fs';
import zlib from 'node:zlib';
import { parseEnvelope } from './head.js';
import type { Envelope } from '../../lib/wire.js';
import { walkMembers, type MemberList } from './gzip-members.js';
import { isCompressed } from './names.js';
import type { ReadFs } from './read-fs.js';
import { LineSplitter } from './splitter.js';

// The synchronous side of the one reader, for start-up (which must finish before the first
// request): whole lines from an offset of a file's plain bytes, plain or gzip, through the
// same line splitter. Damage in a gzip file is reported, never thrown.

const CHUNK = 64 * 1024;

/** What a scan found: where whole lines end, what could not be used, and damage. */
export interface ScanResult {
  /** Offset (in plain bytes) just after the last whole line. */
  end: number;
  /** Bytes after `end` that form no whole line (a torn tail of a plain file); always 0 for a gzip file. */
  tornBytes: number;
  /** Offsets of lines that were not valid envelopes (skipped). */
  bad: number[];
  /** Why (part of) a gzip file could not be read; empty when all of it was. */
  damage: string[];
}

/**
 * Call `onLine` for every whole line from `offset` on (file order); it answers whether the
 * line was usable (else its offset is reported in `bad`).
 */
export function scanLines(file: string, offset: number, onLine: (line: string, start: number) => boolean, io: ReadFs = fs): ScanResult {
  const bad: number[] = [];
  const splitter = new LineSplitter(offset, (line, start) => {
    if (!onLine(line, start) && line.trim() !== '') bad.push(start);
  });
  const fd = io.openSync(file, 'r');
  try {
    const size = io.fstatSync(fd).size;
    const readAt = (pos: number, len: number) => {
      const buf = Buffer.allocUnsafe(Math.max(0, Math.min(len, size - pos)));
      return buf.subarray(0, buf.length === 0 ? 0 : io.readSync(fd, buf, 0, buf.length, pos));
    };
    if (!isCompressed(file)) {
      for (let pos = offset; pos < size;) {
        const chunk = readAt(pos, CHUNK);
        if (chunk.length === 0) break;
        splitter.push(chunk);
        pos += chunk.length;
      }
      return { end: splitter.end, tornBytes: splitter.tornBytes, bad, damage: [] };
    }
    const damage = scanGzip(size, readAt, offset, splitter);
    if (splitter.tornBytes > 0) damage.push(`its last ${splitter.tornBytes} bytes of lines form no whole line`);
    return { end: splitter.end, tornBytes: 0, bad, damage };
  } finally {
    io.closeSync(fd);
  }
}

/** Call `onEnvelope` for every whole line from `offset` on that is an envelope (others are reported in `bad`). */
export function scanFile(file: string, offset: number, onEnvelope: (env: Envelope, line: string) => void, io: ReadFs = fs): ScanResult {
  return scanLines(file, offset, (line) => {
    const env = parseEnvelope(line);
    if (env) onEnvelope(env, line);
    return env !== undefined;
  }, io);
}

/** Feed the plain bytes from `offset` of a gzip file to `splitter`; returns what was damaged. */
function scanGzip(size: number, readAt: (pos: number, len: number) => Buffer, offset: number, splitter: LineSplitter): string[] {
  const walk = walkMembers(size);
  let step = walk.next();
  while (!step.done) step = walk.next(readAt(step.value.pos, step.value.len));
  const list: MemberList = step.value;
  const damage = list.damage ? [list.damage] : [];
  if (!list.indexed) {
    const { plain, error } = gunzipWhole(readAt(0, size));
    if (error) damage.push(error);
    if (plain.length > offset) splitter.push(plain.subarray(offset));
    return damage;
  }
  for (const m of list.members) {
    if (m.plainOffset + m.plainBytes <= offset) continue;
    let plain: Buffer;
    try {
      plain = zlib.gunzipSync(readAt(m.offset, m.bytes));
    } catch (error) {
      damage.push(`its member at byte ${m.offset} does not decompress (${(error as Error).message})`);
      continue;
    }
    const from = Math.max(offset, m.plainOffset);
    if (splitter.end + splitter.tornBytes !== from) splitter.skipTo(from);
    splitter.push(plain.subarray(from - m.plainOffset));
  }
  return damage;
}

/** A single-member gzip decompressed; a truncated one gives what it holds, a corrupt one nothing. */
function gunzipWhole(data: Buffer): { plain: Buffer; error?: string } {
  try {
    const plain = zlib.gunzipSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    // a truncated file gives all it holds; the trailer's length (mod 2^32) says it was cut
    const whole = data.length >= 4 && data.readUInt32LE(data.length - 4) === plain.length % 2 ** 32;
    return whole ? { plain } : { plain, error: `truncated: it ends after ${plain.length} bytes of its lines` };
  } catch (error) {
    return { plain: Buffer.alloc(0), error: `it does not decompress (${(error as Error).message})` };
  }
}

/** The plain size of a file's whole content (a gzip file's decompressed size, as far as it reads); -1 when it cannot be read. */
export function plainSize(file: string, io: ReadFs = fs): number {
  try {
    if (!isCompressed(file)) {
      const fd = io.openSync(file, 'r');
      try {
        return io.fstatSync(fd).size;
      } finally {
        io.closeSync(fd);
      }
    }
    const fd = io.openSync(file, 'r');
    let list: MemberList;
    try {
      const size = io.fstatSync(fd).size;
      const walk = walkMembers(size);
      let step = walk.next();
      while (!step.done) {
        const buf = Buffer.alloc(step.value.len);
        step = walk.next(buf.subarray(0, io.readSync(fd, buf, 0, buf.length, step.value.pos)));
      }
      list = step.value;
    } finally {
      io.closeSync(fd);
    }
    // indexed members say their plain size in their headers; an older gzip is read
    return list.indexed ? list.plainBytes : scanLines(file, 0, () => true, io).end;
  } catch {
    return -1;
  }
}
