import { MemberCache, RecordedFile } from './reader.js';

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
 * later. Throws what opening the file throws (ENOENT: the caller decides).
 */
export async function readTail(file: string, from: number, limits: { lines: number; bytes: number }, cache?: MemberCache): Promise<Tail> {
  const handle = await RecordedFile.open(file, cache);
  try {
    const size = handle.size;
    const limit = size ?? Infinity;
    const lines: TailLine[] = [];
    for (let bytes = Math.max(1, limits.bytes); ; bytes *= 2) {
      const to = Math.min(limit, from + bytes);
      const end = await handle.read(from, to, (line, _start, lineEnd) => {
        if (lines.length < limits.lines) lines.push({ line, end: lineEnd });
      }, () => lines.length >= limits.lines);
      // all of it read: up to the plain size, or a single-member gzip ended before `to`
      const whole = to >= limit || (size === undefined && end < to);
      if (lines.length > 0 || whole) {
        return { lines, end: lines.at(-1)?.end ?? from, size, atEnd: whole && lines.length < limits.lines, damage: handle.damage };
      }
    }
  } finally {
    await handle.close();
  }
}
