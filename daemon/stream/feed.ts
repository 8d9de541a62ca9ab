import type { DamagedFile, History } from '../history/history.js';
import { cursorNamer, headCursor, headPosition, type Position } from '../history/position.js';
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

// Replayed events are read and written a page at a time (the socket's pace sets the reading's),
// bounded in count and bytes: a client that stops reading holds at most one page.
const REPLAY_PAGE = 1000;
export const REPLAY_PAGE_BYTES = 256 * 1024;

/**
 * Send the snapshot or the replay after `since`, then the marker, then live events until the
 * client goes. `prelude`: frames sent just before the marker, made in the turn the client
 * joins the hub (the alarms as they are then: every later change comes live).
 */
export async function feedSubscriber(deps: FeedDeps, sub: Subscriber, since: Position | undefined, who: string,
  prelude: () => string = () => ''): Promise<void> {
  const { store, history, hub } = deps;
  if (!hub.admit(sub, who)) return;
  if (since === undefined) {
    const head = store.head();
    const readings = store.view.entries().filter((r) => sub.wants(r.type)).sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
    hub.add(sub, who);
    const before = prelude();
    // in chunks, as GET /current: the view may be larger than one string
    const text = new ChunkedText(store.view.bodyChunkChars);
    for (const r of readings) text.add(frame('snapshot', r.json));
    if (before !== '') text.add(before);
    text.add(marker(head, { snapshot: readings.length }));
    for (const chunk of text.finish()) {
      if (!await sub.send(chunk)) return;
    }
    sub.release();
    return;
  }
  const done = { replayed: 0, damaged: [] as DamagedFile[] };
  // catch up page by page while the files run ahead of the client...
  let position = await replayTo(history, () => store.head(), since, sub, done);
  if (position === undefined) return;
  // ...then join the hub and read what was written during the last page
  const head = store.head();
  hub.add(sub, who);
  const before = prelude();
  position = await replayTo(history, () => head, position, sub, done);
  if (position === undefined) return;
  if (await sub.send(before + marker(head, done))) sub.release();
}

/** Replay pages after `from` until one ends at the head; the position reached, or undefined once the client is gone. */
async function replayTo(history: History, headOf: () => StoreHead, from: Position, sub: Subscriber,
  done: { replayed: number; damaged: DamagedFile[] }): Promise<Position | undefined> {
  let position = from;
  for (;;) {
    const head = headOf();
    let text = '';
    const cursorAt = cursorNamer(head);
    const result = await history.read({
      head, start: position, limit: REPLAY_PAGE, maxBytes: REPLAY_PAGE_BYTES, filter: { types: sub.types },
      onLine: (line, stream, seq, segment) => { text += frame('replay', line, cursorAt(segment, stream, seq)); },
    });
    for (const d of result.damaged) if (!done.damaged.some((k) => k.file === d.file)) done.damaged.push(d);
    if (text !== '' && !await sub.send(text)) return undefined;
    if (sub.closed) return undefined;
    done.replayed += result.count;
    if (!result.full) return headPosition(head);
    position = result.last!;
  }
}

/** The `live` marker: the head's cursor, what was sent before it, and the damaged files a replay passed (only when some were). */
function marker(head: StoreHead, counts: { snapshot?: number; replayed?: number; damaged?: DamagedFile[] }): string {
  const cursor = headCursor(head);
  const { damaged, ...rest } = counts;
  return frame('live', JSON.stringify({ cursor, ...rest, ...(damaged && damaged.length > 0 ? { damaged } : {}) }), cursor);
}
