import fs from 'node:fs';
import type { Envelope } from '../../lib/wire.js';
import { lineHead, parseEnvelope } from './head.js';
import { isCompressed } from './names.js';
import type { ReadFs } from './read-fs.js';
import { scanLines, type ScanResult } from './scan.js';
import { openRegularSync } from './regular.js';

// The ends of a recorded file without reading all of it where the format allows: its last
// seq (read backwards from the tail), where its whole lines end, its first envelope, and its
// highest seq (all of it: the original service restarted its seq).

const CHUNK = 64 * 1024;

/** The seq of the last whole envelope line of a file (before byte `end`, default its end), or 0 for none or a missing file. */
export function lastSeq(file: string, end?: number, io: ReadFs = fs): number {
  if (isCompressed(file)) {
    let seq = 0;
    scanLines(file, 0, (line) => {
      const head = lineHead(line);
      if (head) seq = head.seq;
      return head !== undefined;
    }, io);
    return seq;
  }
  let fd: number;
  try {
    fd = openRegularSync(file, io);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    let at = Math.min(end ?? Infinity, io.fstatSync(fd).size);
    let tail = '';
    while (at > 0) {
      const start = Math.max(0, at - CHUNK);
      const buf = Buffer.allocUnsafe(at - start);
      io.readSync(fd, buf, 0, buf.length, start);
      tail = buf.toString('utf8') + tail;
      at = start;
      const lines = tail.split('\n');
      // the last element is after the final newline (empty or torn); earlier ones may be whole
      for (let i = lines.length - 2; i >= (at > 0 ? 1 : 0); i--) {
        const head = lineHead(lines[i]!);
        if (head) return head.seq;
      }
    }
    return 0;
  } finally {
    io.closeSync(fd);
  }
}

/**
 * The highest seq of any whole line of a file (0 for none or a missing file), and the scan
 * (where its whole lines end, a torn tail). Every line is read: a file of the original
 * service restarts its seq (1, 2, 3, 1, 2), so its last line need not hold the highest.
 */
export function maxSeq(file: string, io: ReadFs = fs): { seq: number; scan: ScanResult | undefined } {
  if (!fs.existsSync(file)) return { seq: 0, scan: undefined };
  let seq = 0;
  const scan = scanLines(file, 0, (line) => {
    const head = lineHead(line);
    if (head && head.seq > seq) seq = head.seq;
    return head !== undefined;
  }, io);
  return { seq, scan };
}

/** The first whole envelope line of a file, parsed; undefined when there is none in its first 64 KiB (a `.gz`: in it). */
export function firstEnvelope(file: string, io: ReadFs = fs): Envelope | undefined {
  if (isCompressed(file)) {
    let first: Envelope | undefined;
    scanLines(file, 0, (line) => {
      first ??= parseEnvelope(line);
      return true;
    }, io);
    return first;
  }
  const fd = openRegularSync(file, io);
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    const text = buf.toString('utf8', 0, io.readSync(fd, buf, 0, CHUNK, 0));
    const nl = text.indexOf('\n');
    return nl === -1 ? undefined : parseEnvelope(text.slice(0, nl));
  } finally {
    io.closeSync(fd);
  }
}

/** Where the whole lines of a plain file of `size` bytes end (just after its last newline; 0 for none). */
export function wholeLinesEnd(file: string, size: number, io: ReadFs = fs): number {
  const fd = openRegularSync(file, io);
  try {
    const last = Buffer.alloc(1);
    if (io.readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a) return size;
    const buf = Buffer.allocUnsafe(CHUNK);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = io.readSync(fd, buf, 0, end - start, start);
      const at = buf.subarray(0, n).lastIndexOf(0x0a);
      if (at !== -1) return start + at + 1;
      end = start;
    }
    return 0;
  } finally {
    io.closeSync(fd);
  }
}
