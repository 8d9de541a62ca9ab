import type { StateDamage } from './state-repair.js';
import path from 'node:path';
import { makeDirectory } from '../../lib/directories.js';
import { MeridianError } from '../../lib/errors.js';
import { RUN_FILE } from '../ndjson/names.js';
import { formatTs } from '../../lib/time.js';
import { plainName } from '../ndjson/names.js';
import type { RunRecord } from '../../lib/wire.js';
import { plainActiveRunFile } from './active-run-plain.js';
import { Appender } from './appender.js';
import { BatchJournal, settleBatchJournal } from './batch-journal.js';
import { CurrentView } from './current-view.js';
import { DiskSpace, isNoSpace, writeFailure, type DiskFull } from './disk-space.js';
import { Durability } from './durability.js';
import { restore, type Restored, type SuspendedRun } from './restore.js';
import { RunBook, type ValidRunStart } from './run-book.js';
import { Restorations } from './restore-plain.js';
import { assertSafeRunId, resolveRunDir, type RunDirPlace } from './run-resolve.js';
import { RunProtocol } from './run-protocol.js';
import { SiteDays } from './site-days.js';
import { processAlive, SiteLock } from './site-lock.js';
import { Snapshots } from './snapshots.js';
import { errorCode, removeLeftoverTemps, statePaths } from './state-files.js';
import { nodeFs } from './storage-fs.js';
import { activeRunOf, type StoreCore } from './store-core.js';
import type {
  BatchRecorded, Recorded, RecordedCounts, RecordedListener, StoreHead, StoreOptions, TargetEnd, ValidEvent,
} from './store-types.js';
import { Target } from './target.js';
import type { SitePlaces } from './site-places.js';
import { Timeline } from './timeline.js';

// The storage module: the only code that touches the files. Handlers call these methods; the
// work is done by its parts (appender.ts, run-protocol.ts, snapshots.ts) over one StoreCore.

export { RUN_FILE } from './restore.js';
export type { ValidRunStart } from './run-book.js';
export type { SuspendedRun } from './restore.js';
export type { DiskFull } from './disk-space.js';
export type {
  BatchRecorded, Recorded, RecordedCounts, RecordedEvent, RecordedListener, StoreHead, StoreOptions, TargetEnd, ValidEvent,
} from './store-types.js';

/** Appends envelopes to site and run files, keeps the current view, survives restarts. */
export class TelemetryStore {
  readonly view: CurrentView;
  private readonly core: StoreCore;
  private readonly appender: Appender;
  /** Run files being decompressed to be continued (starts for them wait). */
  private readonly restorations = new Restorations();
  private readonly runs: RunProtocol;
  private readonly snapshots: Snapshots;
  private readonly lock: SiteLock;
  /** The state files found damaged at start-up. */
  private readonly stateDamage: readonly StateDamage[];

  private constructor(opts: StoreOptions, restored: Restored, lock: SiteLock) {
    const io = opts.fs ?? nodeFs;
    const paths = statePaths(opts.siteDir);
    this.view = new CurrentView(opts.viewChunkChars);
    this.lock = lock;
    this.stateDamage = restored.damaged;
    for (const reading of restored.current) this.view.set(reading);
    const journal = new BatchJournal(paths.batch, io);
    const days = new SiteDays(opts.siteDir, opts.zone);
    // the last day file of a past day is closed: the first event opens its own day's (housekeeping may compress it);
    // a file named after today (the clock is behind it: a bad clock at boot) stays open, so the first event
    // going to an earlier day is a step back that the snapshot marks at once
    const past = restored.siteFile !== '' && path.basename(restored.siteFile) < path.basename(days.fileAt(opts.clock.now()));
    const closedSiteMark = past ? { file: restored.siteFile, offset: io.statSync(restored.siteFile).size, seq: restored.site.seq } : null;
    const site = new Target('site', past ? '' : restored.siteFile, restored.site.seq, paths.site, io, journal);
    let run;
    if (restored.run) {
      const { state, recovered, file } = restored.run;
      run = activeRunOf(state.record, state.record_json ?? JSON.stringify(state.record), new Target('run', file, recovered.seq, paths.run, io, journal));
      opts.logger.info(`run ${state.record.run_id} is active again (seq ${run.target.seq})`);
    }
    const active = run && { runId: run.record.run_id, file: run.target.path, startOffset: restored.run!.state.start_offset, startSeq: restored.run!.state.start_seq };
    const { places } = restored;
    const { suspended } = restored;
    const stopped = suspended && { runId: suspended.record.run_id, file: path.join(suspended.record.run_dir, RUN_FILE), lastSeq: suspended.lastSeq, exact: suspended.exact };
    const timeline = Timeline.open(paths.timeline, restored.site.seq, active, formatTs(opts.clock.now()), (m) => opts.logger.warn(m), places, io,
      restored.orphan?.seq, stopped);
    this.core = {
      opts, view: this.view, io, paths, places, days,
      durability: new Durability(opts.fsync, opts.logger, opts.observer), site, closedSiteMark, timeline, journal, disk: new DiskSpace(opts.clock, opts.logger), run, suspended: restored.suspended, closed: false,
    };
    this.snapshots = new Snapshots(this.core, () => this.appender.writeQueued());
    this.appender = new Appender(this.core, (dayFile) => this.snapshots.clockWentBack(dayFile));
    const runBook = new RunBook(opts.siteDir, paths.runs, restored.knownRuns, places);
    this.runs = new RunProtocol(this.core, runBook, () => this.appender.writeQueued(), () => this.snapshots.write());
  }

  /**
   * Open the site directory: take its lock (SiteLockedError when another daemon has it),
   * recover seqs, current view and active run, and start. Only the site directory itself
   * can make it fail: an active run whose directory is not usable is suspended, damaged
   * state files are reported and set aside.
   */
  static async open(opts: StoreOptions): Promise<TelemetryStore> {
    const paths = statePaths(opts.siteDir);
    makeDirectory(paths.dir, opts.fs);
    const lock = SiteLock.acquire(paths.dir, opts.siteDir, (m) => opts.logger.warn(m));
    // a state file's temp file a kill -9 left (alarms.json.tmp-<pid>, a cursor's): ours alone now that the lock is held
    removeLeftoverTemps(paths.dir, (m) => opts.logger.info(m), processAlive);
    let store: TelemetryStore;
    let restored: Restored;
    try {
      await plainActiveRunFile(opts.siteDir, opts.logger, opts.fs ?? nodeFs);
      // a batch the daemon died writing is cut before anything is replayed
      restored = restore(opts.siteDir, opts.logger, opts.fs ?? nodeFs,
        (places, logger) => settleBatchJournal(paths.batch, logger, opts.fs ?? nodeFs, places), opts.clock.now(), lock.tookOver);
      store = new TelemetryStore(opts, restored, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
    // a fresh snapshot also drops side files (held seqs, ephemeral lines) it now covers
    try {
      store.snapshot();
    } catch (error) {
      opts.logger.error(`could not write the snapshot ${paths.snapshot} (${errorCode(error)}); until it can be written, a start replays the files`);
    }
    const { run, suspended } = store.core;
    const runState = run ? run.record.run_id : suspended ? `${suspended.record.run_id} (suspended)` : 'none';
    opts.logger.info(`recovered: site seq ${restored.site.seq} (${restored.site.replayed} line(s) replayed), ` +
      `${store.view.size} type(s) current, run ${runState}`);
    store.snapshots.startTimer();
    return store;
  }

  /** How the state files record paths (relative inside the site directory) and where recorded paths are now. */
  get places(): SitePlaces {
    return this.core.places;
  }

  /** How many fsync rounds have run: in `always` mode, concurrent writers share one (group commit). */
  get syncRounds(): number {
    return this.core.durability.rounds;
  }

  /**
   * Listen to every event recorded from now on (in seq order per stream, after its line is
   * written). A listener must not throw or block: it runs on the write path. Returns the
   * function that stops listening.
   */
  onRecorded(listener: RecordedListener): () => void {
    return this.appender.onRecorded(listener);
  }

  /**
   * The record order and the end of what is written, as of now (synchronous: no line is
   * written between this call and the next turn's write). History and stream replay read the
   * files up to it; listeners registered in the same turn receive everything after it.
   */
  head(): StoreHead {
    // lines stamped but not yet written (this turn's batch) come after it, through the listeners
    const end = (target: Target): TargetEnd => ({ file: target.path, bytes: target.path ? writtenBytes(target) : 0, seq: target.seq });
    const { run } = this.core;
    return {
      segments: this.core.timeline.segments().map((segment) => ({ ...segment })),
      site: end(this.core.site),
      run: run && { ...end(run.target), id: run.record.run_id },
    };
  }

  /** The active run's record, or undefined. */
  activeRun(): RunRecord | undefined {
    return this.core.run?.record;
  }

  /** The active run's record as answered (its meta spelled as sent), or undefined. */
  activeRunJson(): string | undefined {
    return this.core.run?.recordJson;
  }

  /** The data files that may be written to now (the day file in use, today's, the active run's): housekeeping never touches them. */
  filesInUse(): string[] {
    const { days, site, run, opts } = this.core;
    const files = [days.fileAt(opts.clock.now())];
    if (site.path) files.push(site.path);
    if (run) files.push(run.target.path);
    return files;
  }

  /** Retention deleted a data file: a stopped run's is journaled as removed, so it is not reported missing. */
  fileRemoved(file: string): void {
    try {
      this.core.timeline.runFileRemoved(plainName(file), formatTs(this.core.opts.clock.now()));
    } catch (error) {
      this.core.opts.logger.warn(`could not note in ${this.core.paths.timeline} that ${file} was deleted (${errorCode(error)}); it is reported missing`);
    }
  }

  /** The run that was active but could not resume at start-up, or undefined. */
  suspendedRun(): SuspendedRun | undefined {
    return this.core.suspended;
  }

  /** The state files under `.meridian/` found damaged at start-up, with what was done instead. */
  damagedState(): readonly StateDamage[] {
    return this.stateDamage;
  }

  /** Since when and where the disk is full (writes answered 503 DISK_FULL), or undefined while writes fit. */
  diskFull(): DiskFull | undefined {
    return this.core.disk.full;
  }

  /** Events recorded since the daemon started, permanent and ephemeral apart. */
  recordedCounts(): RecordedCounts {
    return this.appender.recordedCounts();
  }

  /**
   * Record one event: stamp seq and ts, queue its line for the write of this event-loop
   * turn, update the current view. Resolves once the line is written (and synced in
   * `always` mode). The events of one turn share one write, in seq order.
   */
  append(event: ValidEvent): Promise<Recorded> {
    return this.appender.append(event);
  }

  /**
   * Record a batch: its events get consecutive seqs in batch order, one ts (the daemon's clock
   * read once) and one target file, and go out in one write (and, in `always` mode, one sync
   * round), so either every line is written or none. Rejects like `append` (503) when the
   * write fails, 500 NOT_SYNCED when the sync does. Nothing of the batch is held while its
   * sync runs: only the summary (a batch waiting milliseconds for the disk would otherwise
   * carry thousands of envelopes into V8's old generation).
   */
  appendBatch(events: ValidEvent[]): Promise<BatchRecorded> {
    return this.appender.appendBatch(events);
  }

  /**
   * Start a run: resolve id and directory, continue the run file's seq, remember the run.
   * The current view is left as it is. Answers the record (as JSON text).
   */
  async startRun(req: ValidRunStart): Promise<string> {
    await this.runFilePlain(req);
    return this.runs.start(req);
  }

  /**
   * A stopped run's file compressed by --compress-after, started again: decompressed first as
   * a stream off the event loop (restore-plain.ts), so its seq continues. A derived run id
   * without run_dir names a new directory (nothing to do); one with run_dir (POCS) names the
   * directory given, decompressed the same way; an id or directory the start refuses is left to it.
   */
  private async runFilePlain(req: ValidRunStart): Promise<void> {
    const runId = req.runId ?? req.metaRunId;
    if (runId === undefined && req.runDir === undefined) return;
    let place: RunDirPlace;
    try {
      if (runId !== undefined) assertSafeRunId(runId, 'run id');
      // with run_dir given, the id only names the request in messages
      place = resolveRunDir(this.core.opts.siteDir, runId ?? '', req.runDir);
    } catch {
      return;
    }
    const file = path.join(place.dir, RUN_FILE);
    await this.restorations.of(file, this.core.io, (restored) => restored.then(() => {
      this.core.opts.logger.info(`${file}: decompressed to continue the run`);
    }, (error: unknown) => {
      // a full disk is the disk's state (503 DISK_FULL), not the run directory's fault
      if (isNoSpace(error)) throw writeFailure(error, `Could not decompress ${file} to continue the run (ENOSPC); no run was started.`);
      throw new MeridianError('INVALID_RUN', `Cannot use ${place.given} (${errorCode(error)}).`, { cause: error });
    }));
  }

  /**
   * Stop the active run: snapshot (the view keeps the run's readings), forget the run across
   * restarts, close its file. Answers the record with `stopped_at` (as JSON text).
   */
  stopRun(): string {
    return this.runs.stop();
  }

  /** Write the snapshot now: sync the files, then the marks and the view atomically. */
  snapshot(): void {
    this.snapshots.write();
  }

  /** Stop timers, sync and close the files, write a final snapshot. */
  async close(): Promise<void> {
    const core = this.core;
    if (core.closed) return;
    core.closed = true;
    this.appender.writeQueued();
    this.snapshots.stopTimer();
    await core.durability.close().catch((error) => core.opts.logger.error('final fsync failed', error));
    try {
      this.snapshots.write();
    } catch (error) {
      // the file system's answer in one line; anything else (a bug) with its stack
      const code = (error as NodeJS.ErrnoException).code;
      if (code === undefined) core.opts.logger.error('could not write the snapshot at shutdown; the next start replays the files', error);
      else core.opts.logger.error(`could not write the snapshot ${core.paths.snapshot} at shutdown (${code}); the next start replays the files`);
    }
    core.durability.closeTarget(core.site);
    if (core.run) core.durability.closeTarget(core.run.target);
    core.journal.close();
    this.lock.release();
  }
}

/** The bytes a target's file holds as written; 0 when it cannot be opened (a directory or FIFO at its path: nothing was written there). */
function writtenBytes(target: Target): number {
  try {
    return target.size;
  } catch {
    return 0;
  }
}
