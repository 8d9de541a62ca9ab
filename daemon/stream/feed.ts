import type { History } from '../history/history.js';
import { headCursor, headPosition, type Position } from '../history/position.js';
import { formatCursor } from '../ndjson/cursor.js';
import { ChunkedText } from '../storage/chunked-text.js';
import type { StoreHead, TelemetryStore } from '../storage/store.js';
import { frame } from './frames.js';
import type { StreamHub } from './hub.js';
import type { Subscriber } from './subscriber.js';

// What a /stream client receives before it is live: the current view (a fresh connection) or
// every event after its cursor read back from the files (a resumed one), then the `live`
// marker. The switch to live is exact: the head is taken and the client joins the hub in the
// same turn, so each event comes either from the files (up to that head) or live (after it),
// never both and never neither.

/** What feeding a client needs. */
export interface FeedDeps {
  store: TelemetryStore;
  history: History;
  hub: StreamHub;
}

// Replayed events are read and written a page at a time (the socket's pace sets the reading's).
const REPLAY_PAGE = 1000;

/** Send the snapshot or the replay after `since`, then the marker, then live events until the client goes. */
export async function feedSubscriber(deps: FeedDeps, sub: Subscriber, since: Position | undefined, who: string): Promise<void> {
  const { store, history, hub } = deps;
  if (since === undefined) {
    const head = store.head();
    const readings = store.view.entries().filter((r) => sub.wants(r.type)).sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
    hub.add(sub, who);
    // in chunks, as GET /current: the view may be larger than one string
    const text = new ChunkedText(store.view.bodyChunkChars);
    for (const r of readings) text.add(frame('snapshot', r.json));
    text.add(marker(head, { snapshot: readings.length }));
    for (const chunk of text.finish()) {
      if (!await sub.send(chunk)) return;
    }
    sub.release();
    return;
  }
  let position = since;
  let replayed = 0;
  // catch up page by page while the files run ahead of the client...
  for (;;) {
    const head = store.head();
    const page = await replay(history, head, position, sub, REPLAY_PAGE);
    if (page === undefined) return;
    replayed += page.count;
    position = page.next;
    if (!page.full) break;
  }
  // ...then join the hub and read what was written during the last page
  const head = store.head();
  hub.add(sub, who);
  const rest = await replay(history, head, position, sub, Infinity);
  if (rest === undefined) return;
  if (await sub.send(marker(head, { replayed: replayed + rest.count }))) sub.release();
}

/** Replay up to `limit` events after `from`; undefined once the client is gone. */
async function replay(history: History, head: StoreHead, from: Position, sub: Subscriber, limit: number) {
  let text = '';
  const result = await history.read({
    head, start: from, limit, filter: { types: sub.types },
    onLine: (line, stream, seq) => { text += frame('replay', line, formatCursor(stream, seq)); },
  });
  if (text !== '' && !await sub.send(text)) return undefined;
  if (sub.closed) return undefined;
  return { count: result.count, full: result.full, next: result.full ? result.last! : headPosition(head) };
}

function marker(head: StoreHead, counts: { snapshot?: number; replayed?: number }): string {
  const cursor = headCursor(head);
  return frame('live', JSON.stringify({ cursor, ...counts }), cursor);
}
