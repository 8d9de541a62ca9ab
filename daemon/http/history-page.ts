import type { ServerResponse } from 'node:http';
import type { DamagedFile, History, ReadRequest } from '../history/history.js';
import { cursorNamer, type Position } from '../history/position.js';
import { sendJson } from './respond.js';

// A /history page written as it is read: in slices of about SLICE_BYTES, each read only once
// the socket took the one before, so a client that reads nothing holds one slice of the
// daemon's memory, not the page (up to 16 MiB, several times that while built). The lines
// kept are those of one read of the whole page (a line is kept while the page is below its
// bounds: the slices add up to the same lines). A page that fits one slice is sent whole, with
// its length; a longer one is sent chunked.

const SLICE_BYTES = 256 * 1024;

/** What one page is: from where, how many lines and bytes at most. */
export type PageRequest = Omit<ReadRequest, 'onLine' | 'maxBytes' | 'limit'> & { limit: number; maxBytes: number };

/** Read and send one page of /history; resolves once it is handed over (or the client is gone). */
export async function sendHistoryPage(res: ServerResponse, history: History, page: PageRequest): Promise<void> {
  const damaged: DamagedFile[] = [];
  let start: Position = page.start;
  let count = 0;
  let bytes = 0;
  let started = false;
  let last: (Position & { stream: string }) | undefined;
  // a cursor names its run's segment where the run's seqs repeat (cursorNamer)
  const name = cursorNamer(page.head);
  for (;;) {
    const lines: string[] = [];
    const read = history.read({
      ...page, start, limit: page.limit - count, maxBytes: Math.min(SLICE_BYTES, page.maxBytes - bytes), onLine: (line) => lines.push(line),
    });
    // before the head is written a failure takes the one error path; after it, the answer is cut
    const result = started ? await read.catch((error: unknown) => { res.destroy(error as Error); return undefined; }) : await read;
    if (result === undefined) return;
    for (const d of result.damaged) if (!damaged.some((k) => k.file === d.file)) damaged.push(d);
    count += result.count;
    bytes += result.bytes;
    if (result.last) {
      last = result.last;
      start = result.last;
    }
    const pageFull = count >= page.limit || bytes >= page.maxBytes;
    const done = !result.full || pageFull;
    const body = lines.join(',');
    if (!started && done) {
      sendJson(res, 200, `{"events":[${body}]${tail(pageFull && last ? name(last.segment, last.stream, last.seq) : null, damaged)}`);
      return;
    }
    if (!started) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      started = true;
      if (!await write(res, `{"events":[${body}`)) return;
    } else if (body !== '' && !await write(res, `,${body}`)) {
      return;
    }
    if (done) {
      res.end(`]${tail(pageFull && last ? name(last.segment, last.stream, last.seq) : null, damaged)}`);
      return;
    }
  }
}

// the end of the body after the events: the next cursor, and the damaged files (only when some were)
function tail(next: string | null, damaged: readonly DamagedFile[]): string {
  return `,"next_cursor":${JSON.stringify(next)}${damaged.length > 0 ? `,"damaged":${JSON.stringify(damaged)}` : ''}}`;
}

// write, and wait until the socket took it; false once the client is gone
async function write(res: ServerResponse, text: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(text)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
  return !res.destroyed;
}
