import fs from 'node:fs';
import zlib from 'node:zlib';
import { parseEnvelope } from './head.js';
import type { Envelope } from '../../lib/wire.js';
import { inflateMemberSync } from './gzip-inflate.js';
import { joinsNext, tornMember, walkMembers, type MemberList } from './gzip-members.js';
import { isCompressed } from './names.js';
import type { ReadFs } from './read-fs.js';
import { LineSplitter } from './splitter.js';
import { openRegularSync } from './regular.js';

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
  const fd = openRegularSync(file, io);
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

/** The member list of a gzip file of `size` bytes read by `readAt` (members without the `Md` field inflated to find them). */
export function membersSync(size: number, readAt: (pos: number, len: number) => Buffer): MemberList {
  const walk = walkMembers(size);
  let step = walk.next();
  while (!step.done) {
    const want = step.value;
    step = walk.next(want.inflate !== undefined ? inflateMemberSync(readAt, want.inflate, size) : readAt(want.pos, want.len));
  }
  return step.value;
}

/** Feed the plain bytes from `offset` of a gzip file to `splitter`, member by member; returns what was damaged. */
function scanGzip(size: number, readAt: (pos: number, len: number) => Buffer, offset: number, splitter: LineSplitter): string[] {
  const list = membersSync(size, readAt);
  const damage = [...list.damage];
  for (const [i, m] of list.members.entries()) {
    const memberEnd = m.plainOffset + m.plainBytes;
    if (memberEnd <= offset) continue;
    let plain: Buffer | undefined;
    if (m.streamed) {
      inflateMemberSync(readAt, m.offset, m.offset + m.bytes, (buf) => { plain = buf; });
    } else {
      try {
        plain = zlib.gunzipSync(readAt(m.offset, m.bytes));
        if (plain.length !== m.plainBytes) {
          damage.push(`its member at byte ${m.offset} holds ${plain.length} bytes, not ${m.plainBytes}`);
          plain = undefined;
        }
      } catch (error) {
        damage.push(`its member at byte ${m.offset} does not decompress (${(error as Error).message})`);
      }
    }
    const from = Math.max(offset, m.plainOffset);
    if (splitter.end + splitter.tornBytes !== from) splitter.skipTo(from);
    if (plain) splitter.push(plain.subarray(from - m.plainOffset, m.plainBytes));
    // a member holds whole lines: one that ends inside a line is named (as the asynchronous reader does),
    // unless the next goes on with it (members without the field that follow each other are one stream)
    if (plain && splitter.tornBytes > 0 && !joinsNext(list.members, i)) {
      if (!m.partial) damage.push(tornMember(m.offset, splitter.tornBytes));
      splitter.skipTo(memberEnd);
    }
  }
  return damage;
}

/** The plain size of a file's whole content (a gzip file's decompressed size, as far as it reads); -1 when it cannot be read. */
export function plainSize(file: string, io: ReadFs = fs): number {
  try {
    if (!isCompressed(file)) {
      const fd = openRegularSync(file, io);
      try {
        return io.fstatSync(fd).size;
      } finally {
        io.closeSync(fd);
      }
    }
    return membersOfFile(file, io).plainBytes;
  } catch {
    return -1;
  }
}

/** The member list of the gzip file `file` (membersSync over the file's bytes); throws when it cannot be opened. */
export function membersOfFile(file: string, io: ReadFs = fs): MemberList {
  const fd = openRegularSync(file, io);
  try {
    const size = io.fstatSync(fd).size;
    return membersSync(size, (pos, len) => {
      const buf = Buffer.alloc(Math.max(0, Math.min(len, size - pos)));
      return buf.subarray(0, buf.length === 0 ? 0 : io.readSync(fd, buf, 0, buf.length, pos));
    });
  } finally {
    io.closeSync(fd);
  }
}
