import type { HeldFile, Lease } from './held.js';
import { type MemberCache, RecordedFile } from './reader.js';

// The tail forwarders read: the whole lines after a byte offset of a file's plain bytes,
// bounded in lines and bytes, plain or gzip, through the one reader.

/** One line of the tail and the offset just after it (where a cursor moves once it is delivered). */
export interface TailLine {
  line: string;
  end: number;
}

/** What one read of a tail gave. */
export interface Tail {
  lines: TailLine[];
  /** The offset after the last line returned (`from` when none was). */
  end: number;
  /** The plain size of the file as it was read (undefined for an older single-member gzip). */
  size: number | undefined;
  /** True when nothing whole is left after `end` now. */
  atEnd: boolean;
  /** What was found damaged (reasons), empty when nothing was. */
  damage: readonly string[];
}

/**
 * Up to `limits.lines` whole lines after `from`, reading about `limits.bytes` (more only for
 * a single line longer than that). A line still being written (no newline yet) is left for
 * later. Throws what opening the file throws (ENOENT: the caller decides). With `held`, the
 * file stays open for the next read while bytes are known to be left (held.ts).
 */
export async function readTail(file: string, from: number, limits: { lines: number; bytes: number }, cache?: MemberCache, held?: HeldFile): Promise<Tail> {
  const bytes = Math.max(1, limits.bytes);
  let lease = held ? await held.open(file, from + bytes, cache) : await freshLease(file, cache);
  let more = false;
  try {
    const lines: TailLine[] = [];
    for (let want = bytes; ; want *= 2) {
      const size = lease.handle.size;
      const limit = size ?? Infinity;
      const to = Math.min(limit, from + want);
      if (to >= limit && !lease.fresh) {
        // the held handle knew the file up to here only: open it afresh to see what came since
        const stale = lease;
        lease = { handle: stale.handle, fresh: false, release: async () => {} };
        await stale.release(false);
        lease = await freshLease(file, cache);
        want /= 2;
        continue;
      }
      const end = await lease.handle.read(from, to, (line, _start, lineEnd) => {
        if (lines.length < limits.lines) lines.push({ line, end: lineEnd });
      }, () => lines.length >= limits.lines);
      // all of it read: up to the plain size, or a single-member gzip ended before `to`
      const whole = to >= limit || (size === undefined && end < to);
      if (lines.length > 0 || whole) {
        more = !whole;
        const atEnd = whole && lines.length < limits.lines;
        const { damage } = lease.handle;
        // a damaged compressed file's bytes after its last whole line are part of its damage, named once there
        const sized = atEnd && lease.handle.compressed && damage.length > 0 ? end : size;
        return { lines, end: lines.at(-1)?.end ?? from, size: sized, atEnd, damage };
      }
    }
  } finally {
    await lease.release(more);
  }
}

async function freshLease(file: string, cache?: MemberCache): Promise<Lease> {
  const handle = await RecordedFile.open(file, cache);
  return { handle, fresh: true, release: () => handle.close() };
}
