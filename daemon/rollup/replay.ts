import type { History } from '../history/history.js';
import { headPosition, type Position } from '../history/position.js';
import type { StoreHead } from '../storage/store.js';
import type { RollupEngine } from './engine.js';
import { envelopeParts } from './envelope-parts.js';

// Folding recorded files into an engine: everything after a position, read back through
// daemon/history/ a page at a time, until the head is reached.

const PAGE_LINES = 10_000;

/** Fold the lines after `start` up to `head` into `engine`, `pageLines` at a time; `afterPage` runs after each page (to flush, to yield). Returns the head's position. */
export async function foldFrom(history: History, head: StoreHead, start: Position, engine: RollupEngine,
  afterPage: () => void | Promise<void>, pageLines = PAGE_LINES): Promise<Position> {
  let position = start;
  for (;;) {
    const result = await history.read({
      head, start: position, filter: {}, limit: pageLines,
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
