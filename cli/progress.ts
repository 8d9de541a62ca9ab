import type { CliIo } from './io.js';

// A one-line progress bar on stderr, redrawn in place; nothing at all when stderr is not a
// terminal, or is one that cannot erase a line (TERM=dumb: no escape codes).

const WIDTH = 24;

/** Draws `label [#####-----] 42% detail` over itself; `done()` clears the line. */
export interface Progress {
  update(fraction: number, detail: string): void;
  done(): void;
}

/** A progress bar for `label`, drawn only on a terminal that can erase a line. */
export function progressBar(io: CliIo, label: string): Progress {
  if (!io.stderrIsTTY || io.env?.TERM === 'dumb') return { update() {}, done() {} };
  let drawn = false;
  return {
    update(fraction, detail) {
      const f = Math.min(1, Math.max(0, fraction));
      const filled = Math.round(f * WIDTH);
      io.err(`\r\u001b[K${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${Math.floor(f * 100)}% ${detail}`);
      drawn = true;
    },
    done() {
      if (drawn) io.err('\r\u001b[K');
    },
  };
}
