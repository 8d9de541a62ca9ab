import type { Logger } from '../../lib/log.js';
import type { StorageFs } from '../storage/storage-fs.js';
import type { FreshnessJudge } from './judge.js';
import { writeLearnedLimits } from './limits-file.js';

// Keeps `.meridian/learned-limits.json` up to date: every SAVE_INTERVAL_MS it is written when
// a limit changed (at most that often: a limit moves with every reading of a jittery sensor),
// and once more at stop. A write that fails is logged once per reason and tried again at the
// next change or interval; the limits in force are not affected.

/** How often the limits are compared with those written (ms). */
export const SAVE_INTERVAL_MS = 2000;

/** What the keeper needs. */
export interface LimitsKeeperOptions {
  judge: FreshnessJudge;
  file: string;
  io: StorageFs;
  logger: Logger;
  intervalMs?: number;
}

/** Writes the learned limits when they changed, at most every interval, and at stop. */
export class LearnedLimitsKeeper {
  private readonly opts: LimitsKeeperOptions;
  private written: string;
  private failed: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** The limits as they are now count as written (they were read from the file, or there are none). */
  constructor(opts: LimitsKeeperOptions) {
    this.opts = opts;
    this.written = textOf(opts.judge.knownLimits());
  }

  /** Compare and write every interval. */
  start(): void {
    this.timer = setInterval(() => this.save(), this.opts.intervalMs ?? SAVE_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stop comparing, and write the limits a last time if they changed. */
  stop(): void {
    clearInterval(this.timer);
    this.save();
  }

  /** Write the limits if they changed since the last write. */
  save(): void {
    const limits = this.opts.judge.knownLimits();
    const text = textOf(limits);
    if (text === this.written) return;
    try {
      writeLearnedLimits(this.opts.file, limits, this.opts.io);
      this.written = text;
      this.failed = undefined;
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      if (reason !== this.failed) this.opts.logger.error(`the learned limits could not be written to ${this.opts.file} (${reason}); they are tried again`);
      this.failed = reason;
    }
  }
}

function textOf(limits: ReadonlyMap<string, number>): string {
  return JSON.stringify([...limits].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}
