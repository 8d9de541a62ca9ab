import type { History } from '../history/history.js';
import { headPosition, type Position } from '../history/position.js';
import type { StoreHead, TelemetryStore } from '../storage/store.js';
import type { RollupEngine } from './engine.js';
import { envelopeParts } from './envelope-parts.js';

// Folding recorded files into an engine: everything after a position, read back through
// daemon/history/ a page at a time, until the head is reached.

const PAGE_LINES = 10_000;

/** Fold the lines after `start` up to `head` into `engine`; `afterPage` runs after each page (to flush). Returns the head's position. */
export async function foldFrom(history: History, head: StoreHead, start: Position, engine: RollupEngine,
  afterPage: () => void | Promise<void>): Promise<Position> {
  let position = start;
  for (;;) {
    const result = await history.read({
      head, start: position, filter: {}, limit: PAGE_LINES,
      onLine: (line) => {
        const parts = envelopeParts(line);
        if (parts) engine.fold(parts);
      },
    });
    await afterPage();
    if (result.last) position = { segment: result.last.segment, seq: result.last.seq };
    if (!result.full) return headPosition(head);
  }
}

/**
 * Fold everything after `start` and go on until a read ends where the store's head still is:
 * then nothing was recorded since, and the caller (in the same turn) can take the engine live. Returns where it ended.
 */
export async function foldToHead(store: TelemetryStore, history: History, start: Position, engine: RollupEngine,
  afterPage: () => void | Promise<void>): Promise<Position> {
  let position = start;
  for (;;) {
    position = await foldFrom(history, store.head(), position, engine, afterPage);
    const now = headPosition(store.head());
    if (now.segment === position.segment && now.seq === position.seq) return position;
  }
}
