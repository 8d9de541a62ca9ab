import fs from 'node:fs';
import type { LogDropped } from '../lib/wire.js';

// Log lines that could not be written (stderr on a full disk, a closed pipe; the log file on a
// full disk): dropped and counted, never a reason to stop (GET /status `log_dropped`).

/** Counts the log lines that could not be written. */
export class LogDrops {
  private count = 0;
  private sinceMs = 0;
  private lastCode = '';
  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  /** A line could not be written, for `error`. */
  dropped(error: unknown): void {
    if (this.count === 0) this.sinceMs = this.now();
    this.count++;
    this.lastCode = (error as NodeJS.ErrnoException)?.code ?? 'EIO';
  }

  /** What /status says; undefined while no line was dropped. */
  status(): LogDropped | undefined {
    return this.count === 0 ? undefined : { lines: this.count, since: new Date(this.sinceMs).toISOString(), code: this.lastCode };
  }
}

/**
 * A writer of log text to the process's stderr (fd 2) that never throws nor emits: a write
 * that fails is dropped and counted in `drops` (a stream's error event would end the process).
 */
export function stderrWriter(drops: LogDrops): (text: string) => void {
  return (text) => {
    const buf = Buffer.from(text, 'utf8');
    try {
      for (let done = 0; done < buf.length;) done += fs.writeSync(2, buf, done, buf.length - done);
    } catch (error) {
      drops.dropped(error);
    }
  };
}
