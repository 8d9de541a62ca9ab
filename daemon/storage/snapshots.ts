import path from 'node:path';
import { formatTs } from '../../lib/time.js';
import { isNoSpace } from './disk-space.js';
import { writeSnapshot } from './snapshot-file.js';
import { errorCode, removeIfExists, type TargetMark } from './state-files.js';
import type { StoreCore } from './store-core.js';
import type { Target } from './target.js';

// When and how a store writes its snapshot (the marks of its targets and the current view):
// on demand, every interval when something changed, and when the clock went back a day.

const SNAPSHOT_INTERVAL_MS = 5000;

/** The snapshots of one store; `flush` writes the lines queued in this turn first. */
export class Snapshots {
  private readonly core: StoreCore;
  private readonly flush: () => void;
  private snapshotAt = '';
  private timer: NodeJS.Timeout | undefined;
  /** The errno code the periodic snapshot last failed with (said once until it is written again). */
  private failedWith: string | undefined;

  constructor(core: StoreCore, flush: () => void) {
    this.core = core;
    this.flush = flush;
  }

  /** Snapshot every interval (StoreOptions.snapshotIntervalMs, 0: never) when something changed. */
  startTimer(): void {
    const interval = this.core.opts.snapshotIntervalMs ?? SNAPSHOT_INTERVAL_MS;
    if (interval <= 0) return;
    this.timer = setInterval(() => this.snapshotIfChanged(), interval);
    this.timer.unref();
  }

  /** Stop the periodic snapshots. */
  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Write the snapshot now: sync the files, then the marks and the view atomically. */
  write(): void {
    const core = this.core;
    this.flush();
    const siteMark = core.site.path ? this.mark(core.site) : core.closedSiteMark;
    // the marks' files in their recorded form (relative inside the site directory: site-places.ts)
    const site = siteMark && { ...siteMark, file: core.places.record(siteMark.file) };
    const run = core.run
      ? { ...this.mark(core.run.target), run_id: core.run.record.run_id, started_at: core.run.record.started_at }
      : null;
    if (run) run.file = core.places.record(run.file);
    const readings = core.view.entries();
    const current = readings.map((reading) => reading.json);
    // when each was received, so that a restart knows how long it has been held (lib/reading-age.ts)
    const received = readings.map((reading) => (Number.isFinite(reading.receivedAt) ? reading.receivedAt : null));
    try {
      writeSnapshot(core.paths.snapshot, { written_at: formatTs(core.opts.clock.now()), site, run, current, received }, core.io, core.view.bodyChunkChars);
    } catch (error) {
      core.disk.failed(core.paths.snapshot, error);
      throw error;
    }
    core.disk.wrote();
    // every held seq and ephemeral reading is now covered by the snapshot
    core.site.dropSideFiles();
    core.run?.target.dropSideFiles();
    this.snapshotAt = this.changeMark();
  }

  /**
   * The clock went back to an earlier site day: a start resumes from the snapshot's file and
   * reads only later-named files after it, so the snapshot now marks the earlier file. When it
   * cannot be written it is removed (a start then replays every file) rather than left behind.
   */
  clockWentBack(dayFile: string): void {
    const { logger } = this.core.opts;
    logger.warn(`the clock went back to the site day of ${path.basename(dayFile)}; events go to that file`);
    try {
      this.write();
    } catch (error) {
      logger.error(`could not write the snapshot after the clock went back (${errorCode(error)}); removing it, a start replays every file`);
      try {
        removeIfExists(this.core.paths.snapshot, this.core.io);
      } catch (removal) {
        logger.error(`could not remove ${this.core.paths.snapshot} (${errorCode(removal)}): a start may show older readings`);
      }
    }
  }

  private snapshotIfChanged(): void {
    if (this.changeMark() === this.snapshotAt) return;
    const wasFull = this.core.disk.full !== undefined;
    const logger = this.core.opts.logger;
    try {
      this.write();
      if (this.failedWith !== undefined) logger.info(`the snapshot ${this.core.paths.snapshot} is written again`);
      this.failedWith = undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // not the file system's answer: a bug, with its stack
      if (code === undefined) {
        logger.error('periodic snapshot failed', error);
        return;
      }
      // the file system's (a full disk said once as the disk's state; a read-only one once a cause): one line, no stack
      if ((wasFull && isNoSpace(error)) || code === this.failedWith) return;
      this.failedWith = code;
      logger.error(`could not write the snapshot ${this.core.paths.snapshot} (${code}); a start replays the files until it can be written (said once until it is)`);
    }
  }

  private changeMark(): string {
    return `${this.core.view.version}:${this.core.site.seq}:${this.core.run?.target.seq ?? 0}`;
  }

  private mark(target: Target): TargetMark {
    const file = target.open();
    this.core.durability.beforeMark(file);
    return { file: target.path, offset: file.size, seq: target.seq };
  }
}
