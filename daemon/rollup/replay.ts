import type { History } from '../history/history.js';
import { headPosition, type Position } from '../history/position.js';
import type { StoreHead } from '../storage/store.js';
import type { RollupEngine } from './engine.js';
import { envelopeParts } from './envelope-parts.js';

// Folding recorded files into an engine: everything after a position, read back through
// daemon/history/ a page at a time, until the head is reached.

const PAGE_LINES = 10_000;

/** A position in the files, and what to do (once) before the first line after it is folded. */
export interface Mark {
  at: Position;
  reached: () => void;
}

/**
 * Fold the lines after `start` up to `head` into `engine`, `pageLines` at a time; `afterPage`
 * runs after each page (to flush, to yield); `mark.reached` before the first line after
 * `mark.at`. Returns the head's position.
 */
export async function foldFrom(history: History, head: StoreHead, start: Position, engine: RollupEngine,
  afterPage: () => void | Promise<void>, pageLines = PAGE_LINES, mark?: Mark): Promise<Position> {
  let position = start;
  let before = mark !== undefined;
  for (;;) {
    const result = await history.read({
      head, start: position, filter: {}, limit: pageLines,
      onLine: (line, _stream, seq, segment) => {
        if (before && (segment > mark!.at.segment || (segment === mark!.at.segment && seq > mark!.at.seq))) {
          before = false;
          mark!.reached();
        }
        const parts = envelopeParts(line);
        if (parts) engine.fold(parts);
      },
    });
    await afterPage();
    if (result.last) position = { segment: result.last.segment, seq: result.last.seq };
    if (!result.full) return headPosition(head);
  }
}
