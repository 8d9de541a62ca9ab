import type { LineHead } from '../ndjson/head.js';
import type { DamagedFile, History, ReadFilter } from '../history/history.js';
import type { StoreHead } from '../storage/store.js';

// Every recorded line a report needs, read through the one history reader a page at a time.

const PAGE_LINES = 10_000;
const PAGE_BYTES = 64 * 1024 * 1024;

/** Read every line passing `filter` up to `head`, in record order; returns the damaged files passed. */
export async function readLines(history: History, head: StoreHead, filter: ReadFilter,
  onLine: (line: string, head: LineHead, stream: string) => void): Promise<DamagedFile[]> {
  const damaged = new Map<string, DamagedFile>();
  let start = { segment: 0, seq: 0 };
  for (;;) {
    const result = await history.read({
      head, start, filter, limit: PAGE_LINES, maxBytes: PAGE_BYTES, transient: true,
      onLine: (line, stream, _seq, _segment, keys) => onLine(line, keys, stream),
    });
    for (const d of result.damaged) damaged.set(`${d.file}\n${d.reason}`, d);
    if (!result.full || !result.last) break;
    start = { segment: result.last.segment, seq: result.last.seq };
  }
  return [...damaged.values()];
}
