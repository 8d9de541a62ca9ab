import type { FsyncMode } from '../../lib/config.js';
import type { Logger } from '../../lib/log.js';
import type { LineFile } from './line-file.js';

// When written lines reach stable storage: per request (group commit), per second, or never.

const BATCH_INTERVAL_MS = 1000;

/** Syncs written files according to the `--fsync` mode. */
export class Durability {
  private readonly mode: FsyncMode;
  private readonly logger: Logger;
  private readonly dirty = new Set<LineFile>();
  private inFlight: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private syncRounds = 0;

  constructor(mode: FsyncMode, logger: Logger) {
    this.mode = mode;
    this.logger = logger;
    if (mode === 'batch') {
      this.timer = setInterval(() => {
        this.flush().catch((error) => this.logger.error('periodic fsync failed', error));
      }, BATCH_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /**
   * Note that `file` was written. In `always` mode the promise settles once the line is
   * synced; concurrent callers share one fsync per file (group commit).
   */
  written(file: LineFile): Promise<void> | undefined {
    if (this.mode === 'off') return undefined;
    this.dirty.add(file);
    return this.mode === 'always' ? this.flush() : undefined;
  }

  /** Sync everything written so far; joins a sync already queued behind the one in flight. */
  flush(): Promise<void> {
    if (this.dirty.size === 0 && !this.inFlight) return Promise.resolve();
    if (!this.inFlight) return this.start();
    // a sync is running: lines written now are not covered by it, so queue exactly one more
    this.next ??= this.inFlight.then(() => {
      this.next = undefined;
      return this.start();
    });
    return this.next;
  }

  /** How many sync rounds ran (each round is one fsync per dirty file), for tests and benchmarks. */
  get rounds(): number {
    return this.syncRounds;
  }

  /** Stop the periodic timer and sync what is left (shutdown). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private start(): Promise<void> {
    const files = [...this.dirty];
    this.dirty.clear();
    this.syncRounds++;
    const run = Promise.all(files.map((f) => f.sync())).then(() => undefined);
    // inFlight only tracks completion; the caller of flush() sees the failure
    const settled: Promise<void> = run.then(() => undefined, () => undefined).then(() => {
      if (this.inFlight === settled) this.inFlight = undefined;
    });
    this.inFlight = settled;
    return run;
  }
}
