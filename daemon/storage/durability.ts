import type { FsyncMode } from '../../lib/config.js';
import type { Logger } from '../../lib/log.js';
import type { LineFile } from './line-file.js';
import { unobserved, type StorageObserver } from './observer.js';
import type { Target } from './target.js';

// When written lines reach stable storage: per request (group commit), per second, or never.
// How concurrent syncs of one file are shared is LineFile's concern.

const BATCH_INTERVAL_MS = 1000;
// batch mode also syncs a file as soon as this much is unsynced: under heavy load each sync
// stays small (a 15 MB sync once a second stalled the event loop for milliseconds), while a
// trickle of events still costs one sync a second (flash cards in small observatory PCs)
const BATCH_MAX_UNSYNCED_BYTES = 1024 * 1024;

/** Syncs written files according to the `--fsync` mode. */
export class Durability {
  private readonly mode: FsyncMode;
  private readonly logger: Logger;
  private readonly dirty = new Set<LineFile>();
  private timer: NodeJS.Timeout | undefined;
  private syncRounds = 0;
  private readonly observer: StorageObserver;

  constructor(mode: FsyncMode, logger: Logger, observer: StorageObserver = unobserved) {
    this.mode = mode;
    this.logger = logger;
    this.observer = observer;
    if (mode === 'batch') {
      this.timer = setInterval(() => {
        this.flush().catch((error) => this.logger.error('periodic fsync failed', error));
      }, BATCH_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /**
   * Note that `file` was written. In `always` mode the promise settles once the lines written
   * so far are synced; concurrent writers share sync rounds (group commit).
   */
  written(file: LineFile): Promise<void> | undefined {
    if (this.mode === 'off') return undefined;
    this.dirty.add(file);
    if (this.mode === 'always') return this.sync(file);
    if (file.unsyncedBytes >= BATCH_MAX_UNSYNCED_BYTES) {
      const before = this.syncRounds;
      const done = this.sync(file);
      // log a failure once, by the call that started the round (the others joined it)
      if (this.syncRounds !== before) done.catch((error) => this.logger.error(`fsync of ${file.path} failed`, error));
    }
    return undefined;
  }

  /** Sync every file written to since the last flush. */
  async flush(): Promise<void> {
    const files = [...this.dirty];
    this.dirty.clear();
    await Promise.all(files.map((file) => this.sync(file)));
  }

  /** How many sync rounds ran (one fdatasync each), for tests and benchmarks. */
  get rounds(): number {
    return this.syncRounds;
  }

  /** Close a target's files (run stop, shutdown): synced first unless the mode is `off`. */
  closeTarget(target: Target): void {
    target.close(this.mode !== 'off');
  }

  /** Point a target at another file (site day change): the old one synced unless the mode is `off`. */
  switchTarget(target: Target, filePath: string): void {
    target.switchTo(filePath, this.mode !== 'off');
  }

  /**
   * Before a snapshot marks a file's length: sync it, so the mark never points past synced
   * data. With `off` nothing is synced; a file found shorter than its mark after a power cut
   * is replayed from the start instead.
   */
  beforeMark(file: LineFile): void {
    if (this.mode !== 'off') file.syncNow();
  }

  /** Stop the periodic timer and sync what is left (shutdown). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private sync(file: LineFile): Promise<void> {
    const before = file.rounds;
    const done = file.sync();
    if (file.rounds !== before) {
      this.syncRounds += file.rounds - before;
      const end = this.observer.syncStarted();
      done.then(() => end(false), () => end(true));
    }
    return done;
  }
}
