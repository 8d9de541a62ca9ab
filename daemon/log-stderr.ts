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
  const lines = new LineWriter(drops);
  return (text) => lines.write(2, text);
}

/**
 * Writes whole log lines to a descriptor, never throwing: a write that fails is dropped and
 * counted. A line torn by a write that failed part-way (a full disk) is ended with a newline
 * before the next line is written, so no two lines are ever glued into one.
 */
export class LineWriter {
  private torn = false;
  private readonly drops: LogDrops | undefined;

  constructor(drops?: LogDrops) {
    this.drops = drops;
  }

  /** Append `text` (whole lines) to `fd`. */
  write(fd: number, text: string): void {
    const ending = this.torn ? 1 : 0;
    const buf = Buffer.from(this.torn ? `\n${text}` : text, 'utf8');
    let done = 0;
    try {
      while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done);
      this.torn = false;
    } catch (error) {
      // part of a new line written: it is torn now; only the ending newline: the old one is ended
      if (done > ending) this.torn = true;
      else if (done === ending && ending === 1) this.torn = false;
      this.drops?.dropped(error);
    }
  }
}
