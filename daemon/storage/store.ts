import path from 'node:path';
import type { FsyncMode } from '../../lib/config.js';
import { MeridianError } from '../../lib/errors.js';
import { setMember } from '../../lib/json-text.js';
import type { Logger } from '../../lib/log.js';
import { formatTs, type Clock } from '../../lib/time.js';
import type { RunRecord } from '../../lib/wire.js';
import { makeDirectory } from '../../lib/directories.js';
import { ensurePlain } from './compressed.js';
import { CurrentView, Reading } from './current-view.js';
import { Durability } from './durability.js';
import { envelopeLine } from './envelope-line.js';
import type { StorageObserver } from './observer.js';
import { restore, type Restored, type SuspendedRun } from './restore.js';
import { RunBook, type ValidRunStart } from './run-book.js';
import { SiteLock } from './site-lock.js';
import { SiteDays } from './site-days.js';
import {
  errorCode, removeIfExists, statePaths, writeJsonAtomic, type ActiveRunState, type TargetMark,
} from './state-files.js';
import { writeSnapshot } from './snapshot-file.js';
import { nodeFs, type StorageFs } from './storage-fs.js';
import { Target, type TargetKind } from './target.js';
import { Timeline, type Segment } from './timeline.js';
import { WriteBatch, type BatchOutcome, type Queued } from './write-batch.js';

// The storage module: the only code that touches the files. Handlers call these methods.

export { RUN_FILE } from './restore.js';
export type { ValidRunStart } from './run-book.js';
export type { SuspendedRun } from './restore.js';
const SNAPSHOT_INTERVAL_MS = 5000;
// at most this many lines wait for the write of one turn
const MAX_BATCH = 1024;

/** What the store needs from the outside world. */
export interface StoreOptions {
  siteDir: string;
  zone: string;
  fsync: FsyncMode;
  clock: Clock;
  logger: Logger;
  /** How often a changed state is snapshotted (ms); 0 disables the timer. */
  snapshotIntervalMs?: number;
  /** The file-system calls that write (default node:fs); tests inject failures here. */
  fs?: StorageFs;
  /** Told of failed writes and sync rounds (the metrics). */
  observer?: StorageObserver;
  /** The size of the chunks (characters) the `/current` body and the snapshot are built in; tests make it small. */
  viewChunkChars?: number;
}

/** An event that passed validation; `data` and `meta` are JSON texts as the caller spelled them. */
export interface ValidEvent {
  type: string;
  data: string;
  makeCurrent: boolean;
  /** false: ephemeral (a seq and a view update, no line in any telemetry file). */
  storePermanently: boolean;
  /** The caller's ts, already in the envelope form; undefined: the daemon's clock. */
  ts?: string;
  /** A JSON object text. */
  meta: string;
}

/** A recorded event: its reading (envelope line and all), where it went, the run it belongs to. */
export interface Recorded {
  reading: Reading;
  target: TargetKind;
  /** The target's file (for an ephemeral event: where it would have gone; nothing was written). */
  file: string;
  runId: string | undefined;
  permanent: boolean;
}

/** A recorded batch (POST /events): how many, their seqs, where they went. */
export interface BatchRecorded {
  recorded: number;
  firstSeq: number;
  lastSeq: number;
  target: TargetKind;
  file: string;
  runId: string | undefined;
}

/** An event as it was recorded, for the listeners of `onRecorded` (streams, forwarders, metrics). */
export interface RecordedEvent {
  /** The envelope and its JSON line (without newline). */
  reading: Reading;
  /** `site`, or the run's id: the seq counter the envelope belongs to. */
  stream: string;
  target: TargetKind;
  /** The target's file (for an ephemeral event nothing was written to it). */
  file: string;
  makeCurrent: boolean;
  /** false: an ephemeral event (store_permanently false), in no file. */
  permanent: boolean;
}

/** Called once per recorded event, in seq order, after its line was handed to the OS. */
export type RecordedListener = (event: RecordedEvent) => void;

/** How far a target's file is written: its path, its length in whole lines, and its last seq. */
export interface TargetEnd {
  /** '' before the first site line. */
  file: string;
  bytes: number;
  seq: number;
}

/** Where writing stands now: the segments in record order (a copy), the site's end and the active run's. */
export interface StoreHead {
  segments: Segment[];
  site: TargetEnd;
  run: (TargetEnd & { id: string }) | undefined;
}

/** Events recorded since the daemon started, permanent and ephemeral apart (GET /status). */
export interface RecordedCounts {
  permanent: number;
  ephemeral: number;
}

interface ActiveRun {
  record: RunRecord;
  /** The record as answered (meta spelled as the caller sent it). */
  recordJson: string;
  /** The run id as JSON text, and the meta of an event that sent none. */
  idJson: string;
  emptyMeta: string;
  target: Target;
}

/** Appends envelopes to site and run files, keeps the current view, survives restarts. */
export class TelemetryStore {
  readonly view: CurrentView;
  private readonly opts: StoreOptions;
  private readonly paths: ReturnType<typeof statePaths>;
  private readonly days: SiteDays;
  private readonly durability: Durability;
  private readonly site: Target;
  private readonly runBook: RunBook;
  private run: ActiveRun | undefined;
  private snapshotAt = '';
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private batch: WriteBatch | undefined;
  private lastTsMs = NaN;
  private lastTs = '';
  private readonly listeners = new Set<RecordedListener>();
  private readonly counts: RecordedCounts = { permanent: 0, ephemeral: 0 };
  private readonly io: StorageFs;
  private readonly lock: SiteLock;
  private suspended: SuspendedRun | undefined;
  /** Where the site stood at start-up when its last file was a past day's (no file open yet): what snapshots mark until one is. */
  private readonly closedSiteMark: TargetMark | null;
  private timeline!: Timeline;

  private constructor(opts: StoreOptions, restored: Restored, lock: SiteLock) {
    this.opts = opts;
    this.view = new CurrentView(opts.viewChunkChars);
    this.io = opts.fs ?? nodeFs;
    this.lock = lock;
    this.suspended = restored.suspended;
    this.paths = statePaths(opts.siteDir);
    this.days = new SiteDays(opts.siteDir, opts.zone);
    this.durability = new Durability(opts.fsync, opts.logger, opts.observer);
    // the last day file of a past day is closed: the first event opens its own day's (housekeeping may compress it)
    const past = restored.siteFile !== '' && restored.siteFile !== this.days.fileAt(opts.clock.now());
    this.closedSiteMark = past ? { file: restored.siteFile, offset: this.io.statSync(restored.siteFile).size, seq: restored.site.seq } : null;
    this.site = new Target('site', past ? '' : restored.siteFile, restored.site.seq, this.paths.site, this.io);
    this.runBook = new RunBook(opts.siteDir, this.paths.runs, restored.knownRuns);
    for (const reading of restored.current) this.view.set(reading);
    if (restored.run) {
      const { state, recovered, file } = restored.run;
      const recordJson = state.record_json ?? JSON.stringify(state.record);
      const target = new Target('run', file, recovered.seq, this.paths.run, this.io);
      this.run = this.activeRunOf(state.record, recordJson, target);
      opts.logger.info(`run ${state.record.run_id} is active again (seq ${target.seq})`);
    }
  }

  /**
   * Open the site directory: take its lock (SiteLockedError when another daemon has it),
   * recover seqs, current view and active run, and start. Only the site directory itself
   * can make it fail: an active run whose directory is not usable is suspended, damaged
   * state files are reported and set aside.
   */
  static open(opts: StoreOptions): TelemetryStore {
    const paths = statePaths(opts.siteDir);
    makeDirectory(paths.dir, opts.fs);
    const lock = SiteLock.acquire(paths.dir, opts.siteDir, (m) => opts.logger.warn(m));
    let store: TelemetryStore;
    let restored: Restored;
    try {
      restored = restore(opts.siteDir, opts.logger, opts.fs);
      store = new TelemetryStore(opts, restored, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
    const { run } = restored;
    const active = store.run && run && { runId: store.run.record.run_id, file: store.run.target.path, startOffset: run.state.start_offset, startSeq: run.state.start_seq };
    store.timeline = Timeline.open(paths.timeline, restored.site.seq, active, formatTs(opts.clock.now()), (m) => opts.logger.warn(m), opts.fs);
    // a fresh snapshot also drops side files (held seqs, ephemeral lines) it now covers
    try {
      store.snapshot();
    } catch (error) {
      opts.logger.error(`could not write the snapshot ${paths.snapshot} (${errorCode(error)}); until it can be written, a start replays the files`);
    }
    const runState = store.run ? store.run.record.run_id : store.suspended ? `${store.suspended.record.run_id} (suspended)` : 'none';
    opts.logger.info(`recovered: site seq ${restored.site.seq} (${restored.site.replayed} line(s) replayed), ` +
      `${store.view.size} type(s) current, run ${runState}`);
    const interval = opts.snapshotIntervalMs ?? SNAPSHOT_INTERVAL_MS;
    if (interval > 0) {
      store.timer = setInterval(() => store.snapshotIfChanged(), interval);
      store.timer.unref();
    }
    return store;
  }

  /** How many fsync rounds have run: in `always` mode, concurrent writers share one (group commit). */
  get syncRounds(): number {
    return this.durability.rounds;
  }

  /**
   * Listen to every event recorded from now on (in seq order per stream, after its line is
   * written). A listener must not throw or block: it runs on the write path. Returns the
   * function that stops listening.
   */
  onRecorded(listener: RecordedListener): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /**
   * The record order and the end of what is written, as of now (synchronous: no line is
   * written between this call and the next turn's write). History and stream replay read the
   * files up to it; listeners registered in the same turn receive everything after it.
   */
  head(): StoreHead {
    // lines stamped but not yet written (this turn's batch) come after it, through the listeners
    const end = (target: Target): TargetEnd => ({ file: target.path, bytes: target.path ? target.size : 0, seq: target.seq });
    return {
      segments: this.timeline.segments().map((segment) => ({ ...segment })),
      site: end(this.site),
      run: this.run && { ...end(this.run.target), id: this.run.record.run_id },
    };
  }

  /** The active run's record, or undefined. */
  activeRun(): RunRecord | undefined {
    return this.run?.record;
  }

  /** The active run's record as answered (its meta spelled as sent), or undefined. */
  activeRunJson(): string | undefined {
    return this.run?.recordJson;
  }

  /** The data files that may be written to now (the day file in use, today's, the active run's): housekeeping never touches them. */
  filesInUse(): string[] {
    const files = [this.days.fileAt(this.opts.clock.now())];
    if (this.site.path) files.push(this.site.path);
    if (this.run) files.push(this.run.target.path);
    return files;
  }

  /** The run that was active but could not resume at start-up, or undefined. */
  suspendedRun(): SuspendedRun | undefined {
    return this.suspended;
  }

  /** Events recorded since the daemon started, permanent and ephemeral apart. */
  recordedCounts(): RecordedCounts {
    return { ...this.counts };
  }

  /**
   * Record one event: stamp seq and ts, queue its line for the write of this event-loop
   * turn, update the current view. Resolves once the line is written (and synced in
   * `always` mode). The events of one turn share one write, in seq order.
   */
  async append(event: ValidEvent): Promise<Recorded> {
    const now = this.opts.clock.now();
    const batch = this.batchAt(now, false);
    const run = this.run;
    const entry = this.stamp(batch, event, now);
    if (batch.entries.length >= MAX_BATCH) this.writeQueued();
    let file;
    try {
      file = await batch.done;
    } catch (error) {
      throw notWritten(batch.target.path, error);
    }
    if (entry.failure !== undefined) throw notWritten(batch.target.path, entry.failure);
    // the seq may have moved down: an event before it in the batch failed
    const recorded: Recorded = { reading: entry.reading, target: batch.target.kind, file: batch.target.path, runId: run?.record.run_id, permanent: entry.permanent };
    const synced = entry.permanent && file ? this.durability.written(file) : undefined;
    if (synced) await notSynced(synced, `The event was recorded as seq ${entry.reading.seq} in ${batch.target.path}`, 'it');
    return recorded;
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
    let written: { recorded: BatchRecorded; synced: Promise<void> | undefined };
    try {
      written = this.writeWhole(events);
    } catch (error) {
      return Promise.reject(error);
    }
    const { recorded, synced } = written;
    if (!synced) return Promise.resolve(recorded);
    return notSynced(synced, `The ${recorded.recorded} event(s) were recorded as seqs ${recorded.firstSeq}..${recorded.lastSeq} in ${recorded.file}`, 'them')
      .then(() => recorded);
  }

  /** Stamp and write a whole batch now; throws 503 when the write failed. Returns the summary and the sync to wait for (`always`). */
  private writeWhole(events: ValidEvent[]): { recorded: BatchRecorded; synced: Promise<void> | undefined } {
    // lines of other requests of this turn go first, in their own write
    this.writeQueued();
    const now = this.opts.clock.now();
    const batch = this.batchAt(now, true);
    const run = this.run;
    let permanent = false;
    for (const event of events) permanent = this.stamp(batch, event, now).permanent || permanent;
    const { target, entries } = batch;
    const recorded: BatchRecorded = {
      recorded: entries.length, firstSeq: entries[0]!.reading.seq, lastSeq: entries.at(-1)!.reading.seq,
      target: target.kind, file: target.path, runId: run?.record.run_id,
    };
    const outcome = this.writeQueued()!;
    if (outcome.failed > 0) throw notWritten(target.path, outcome.error);
    return { recorded, synced: permanent && outcome.file ? this.durability.written(outcome.file) : undefined };
  }

  /** The batch of this turn for the target that takes events at `now` (a whole one, POST /events, is new). */
  private batchAt(now: number, whole: boolean): WriteBatch {
    if (this.closed) throw new MeridianError('STORAGE_UNAVAILABLE', 'the daemon is shutting down; the event was not recorded');
    const run = this.run;
    const target = run ? run.target : this.site;
    if (!run) {
      const dayFile = this.days.fileAt(now);
      if (dayFile !== target.path) {
        this.writeQueued();
        if (ensurePlain(dayFile)) this.opts.logger.warn(`${dayFile}: decompressed to append to it again (the clock went back?)`);
        const back = target.path !== '' && path.basename(dayFile) < path.basename(target.path);
        this.durability.switchTarget(target, dayFile);
        if (back) this.markClockBack(dayFile);
      }
    }
    if (this.batch && this.batch.target !== target) this.writeQueued();
    return this.batch ??= this.openBatch(target, whole);
  }

  /** Stamp an event with the batch's next seq and queue its line there. */
  private stamp(batch: WriteBatch, event: ValidEvent, now: number): Queued {
    const run = this.run;
    const seq = batch.nextSeq;
    const meta = !run ? event.meta : event.meta === '{}' ? run.emptyMeta : setMember(event.meta, 'run_id', run.idJson);
    const line = envelopeLine(seq, event.ts ?? this.tsAt(now), JSON.stringify(event.type), event.data, meta);
    // only a meta naming max_age_s can carry the reading's own limit (the judge then reads it)
    const reading = new Reading(event.type, seq, line, meta.includes('"max_age_s"'));
    const entry: Queued = { reading, makeCurrent: event.makeCurrent, permanent: event.storePermanently };
    batch.entries.push(entry);
    return entry;
  }

  /**
   * Start a run: resolve id and directory, continue the run file's seq, remember the run.
   * The current view is left as it is. Answers the record (as JSON text).
   */
  startRun(req: ValidRunStart): string {
    this.writeQueued();
    if (this.run) {
      throw new MeridianError('RUN_ACTIVE', `Run ${this.run.record.run_id} is already active; stop it first.`);
    }
    const resolved = this.runBook.resolve(req, formatTs(this.opts.clock.now()), this.opts.logger, this.io);
    const { record, recordJson, file, seq } = resolved;
    const target = new Target('run', file, seq, this.paths.run, this.io);
    // the record is the commit point: written whole, or the start did not happen
    try {
      target.dropSideFiles();
      // the journal first: a crash before the record leaves a start the next open closes again
      this.timeline.runStarted(record.run_id, file, this.site.seq, seq, record.started_at);
      const state: ActiveRunState = { record, record_json: recordJson, start_offset: resolved.size, start_seq: seq };
      writeJsonAtomic(this.paths.activeRun, state, this.io);
    } catch (error) {
      target.close(false);
      this.timeline.undoStart(record.run_id, file, this.site.seq, seq, record.started_at);
      resolved.undo();
      throw new MeridianError('STORAGE_UNAVAILABLE',
        `Could not record the start of run ${record.run_id} (${errorCode(error)}); no run was started.`, { cause: error });
    }
    try {
      this.runBook.started(record);
    } catch (error) {
      this.opts.logger.warn(`could not note run ${record.run_id} in ${this.paths.runs} (${errorCode(error)})`);
    }
    if (this.suspended) this.opts.logger.warn(`run ${record.run_id} replaces the suspended run ${this.suspended.record.run_id}`);
    this.suspended = undefined;
    this.run = this.activeRunOf(record, recordJson, target);
    this.opts.logger.info(`run ${record.run_id} started in ${record.run_dir} (seq continues after ${seq})`);
    return recordJson;
  }

  /**
   * Stop the active run: snapshot (the view keeps the run's readings), forget the run across
   * restarts, close its file. Answers the record with `stopped_at` (as JSON text).
   */
  stopRun(): string {
    this.writeQueued();
    const run = this.run;
    const suspended = this.suspended;
    if (!run && !suspended) throw new MeridianError('NO_ACTIVE_RUN', 'No run is active.');
    if (!run) {
      // removing the record is the commit point
      try {
        removeIfExists(this.paths.activeRun, this.io);
      } catch (error) {
        throw new MeridianError('STORAGE_UNAVAILABLE', `Could not record the stop of run ${suspended!.record.run_id} ` +
          `(${errorCode(error)}); it is still suspended, try again.`, { cause: error });
      }
      this.suspended = undefined;
      this.opts.logger.info(`suspended run ${suspended!.record.run_id} ended`);
      return JSON.stringify({ ...suspended!.record, stopped_at: formatTs(this.opts.clock.now()) });
    }
    // first the snapshot, still with the run's mark: a crash before the record is removed
    // finds the run active again with nothing to replay. A snapshot that fails does not stop
    // the stop (the next start replays the files); removing the record is the commit point.
    let snapshotFailure: unknown;
    try {
      this.snapshot();
    } catch (error) {
      snapshotFailure = error;
    }
    const stoppedAt = formatTs(this.opts.clock.now());
    try {
      // the journal says it first (a crash in between: the next open journals the run going on)
      this.timeline.runStopped(run.record.run_id, run.target.path, this.site.seq, run.target.seq, stoppedAt);
      removeIfExists(this.paths.activeRun, this.io);
    } catch (error) {
      this.timeline.undoStop(run.record.run_id, run.target.path, this.site.seq, run.target.seq, stoppedAt);
      throw new MeridianError('STORAGE_UNAVAILABLE', `Could not record the stop of run ${run.record.run_id} ` +
        `(${errorCode(error)}); it is still active, try again.`, { cause: error });
    }
    if (snapshotFailure !== undefined) {
      this.opts.logger.error(`run ${run.record.run_id} stopped, but the snapshot after it failed (${errorCode(snapshotFailure)}); the next start replays the files`);
    }
    this.run = undefined;
    this.durability.closeTarget(run.target);
    run.target.dropSideFiles();
    try {
      this.runBook.stopped(run.record, run.target.seq);
    } catch (error) {
      this.opts.logger.warn(`could not note the last seq of run ${run.record.run_id} in ${this.paths.runs} (${(error as Error).message})`);
    }
    this.opts.logger.info(`run ${run.record.run_id} stopped at seq ${run.target.seq}`);
    return `${run.recordJson.slice(0, -1)},"stopped_at":"${stoppedAt}"}`;
  }

  /** Write the snapshot now: sync the files, then the marks and the view atomically. */
  snapshot(): void {
    this.writeQueued();
    const site = this.site.path ? this.mark(this.site) : this.closedSiteMark;
    const run = this.run
      ? { ...this.mark(this.run.target), run_id: this.run.record.run_id, started_at: this.run.record.started_at }
      : null;
    const current = this.view.entries().map((reading) => reading.json);
    writeSnapshot(this.paths.snapshot, { written_at: formatTs(this.opts.clock.now()), site, run, current }, this.io, this.view.bodyChunkChars);
    // every held seq and ephemeral reading is now covered by the snapshot
    this.site.dropSideFiles();
    this.run?.target.dropSideFiles();
    this.snapshotAt = this.changeMark();
  }

  /**
   * The clock went back to an earlier site day: a start resumes from the snapshot's file and
   * reads only later-named files after it, so the snapshot now marks the earlier file. When it
   * cannot be written it is removed (a start then replays every file) rather than left behind.
   */
  private markClockBack(dayFile: string): void {
    this.opts.logger.warn(`the clock went back to the site day of ${path.basename(dayFile)}; events go to that file`);
    try {
      this.snapshot();
    } catch (error) {
      this.opts.logger.error(`could not write the snapshot after the clock went back (${errorCode(error)}); removing it, a start replays every file`);
      try {
        removeIfExists(this.paths.snapshot, this.io);
      } catch (removal) {
        this.opts.logger.error(`could not remove ${this.paths.snapshot} (${errorCode(removal)}): a start may show older readings`);
      }
    }
  }

  /** Stop timers, sync and close the files, write a final snapshot. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.writeQueued();
    if (this.timer) clearInterval(this.timer);
    await this.durability.close().catch((error) => this.opts.logger.error('final fsync failed', error));
    try {
      this.snapshot();
    } catch (error) {
      this.opts.logger.error('could not write the snapshot at shutdown; the next start replays the files', error);
    }
    this.durability.closeTarget(this.site);
    if (this.run) this.durability.closeTarget(this.run.target);
    this.lock.release();
  }

  /**
   * Start the batch of this turn; it is written once the turn's I/O callbacks have run. A
   * whole batch (POST /events: written whole or not at all) is written by its caller.
   */
  private openBatch(target: Target, whole: boolean): WriteBatch {
    const batch = new WriteBatch(target, whole);
    if (!whole) {
      setImmediate(() => {
        if (this.batch === batch) this.writeQueued();
      });
    }
    return batch;
  }

  /**
   * Write the queued lines now and put them in the view. Called at the end of the turn and
   * before anything that reads seqs, files or views (snapshot, run start/stop, day change).
   * A failed write consumes no seq; its appends answer 503.
   */
  private writeQueued(): BatchOutcome | undefined {
    const batch = this.batch;
    if (!batch) return undefined;
    this.batch = undefined;
    const outcome = batch.write();
    if (outcome.failed > 0) {
      const n = batch.entries.length;
      this.opts.logger.error(`write of ${n} line(s) to ${batch.target.path} failed (${errorCode(outcome.error)}); ` +
        (outcome.failed === n ? 'answered 503' : `written one at a time: ${n - outcome.failed} written, ${outcome.failed} answered 503`));
      this.opts.observer?.writeFailed(batch.target.kind, outcome.failed);
      // reopened on next use; what was written is synced first (unless --fsync off)
      this.durability.closeTarget(batch.target);
      if (outcome.failed === n) return outcome;
    }
    const written = outcome.failed === 0 ? batch.entries : batch.entries.filter((e) => e.failure === undefined);
    for (const e of written) {
      if (e.makeCurrent) this.view.set(e.reading);
      if (e.permanent) this.counts.permanent++;
      else this.counts.ephemeral++;
    }
    if (this.listeners.size === 0) return outcome;
    const target = batch.target;
    const stream = target.kind === 'site' ? 'site' : this.run!.record.run_id;
    for (const e of written) {
      const event: RecordedEvent = {
        reading: e.reading, stream, target: target.kind, file: target.path, makeCurrent: e.makeCurrent, permanent: e.permanent,
      };
      for (const listener of this.listeners) listener(event);
    }
    return outcome;
  }

  /** The envelope ts of an instant; events of the same millisecond share one formatting. */
  private tsAt(epochMs: number): string {
    if (epochMs !== this.lastTsMs) {
      this.lastTsMs = epochMs;
      this.lastTs = formatTs(epochMs);
    }
    return this.lastTs;
  }

  private snapshotIfChanged(): void {
    if (this.changeMark() === this.snapshotAt) return;
    try {
      this.snapshot();
    } catch (error) {
      this.opts.logger.error('periodic snapshot failed', error);
    }
  }

  private changeMark(): string {
    return `${this.view.version}:${this.site.seq}:${this.run?.target.seq ?? 0}`;
  }

  private mark(target: Target): TargetMark {
    const file = target.open();
    this.durability.beforeMark(file);
    return { file: target.path, offset: file.size, seq: target.seq };
  }

  private activeRunOf(record: RunRecord, recordJson: string, target: Target): ActiveRun {
    const idJson = JSON.stringify(record.run_id);
    return { record, recordJson, idJson, emptyMeta: `{"run_id":${idJson}}`, target };
  }
}

/** Wait for the sync of written lines; a failure is 500 NOT_SYNCED: `what` (recorded) must not be sent again. */
async function notSynced(synced: Promise<void>, recorded: string, what: 'it' | 'them'): Promise<void> {
  try {
    await synced;
  } catch (error) {
    throw new MeridianError('NOT_SYNCED', `${recorded}, but the sync to disk failed (${errorCode(error)}); ` +
      `do not send ${what} again: ${what === 'it' ? 'it' : 'they'} would be recorded twice.`, { cause: error });
  }
}

/** The 503 of an event whose line could not be written: nothing was recorded, no seq used. */
function notWritten(file: string, error: unknown): MeridianError {
  return new MeridianError('STORAGE_UNAVAILABLE', `Could not write to ${file} (${errorCode(error)}); the event was not recorded.`, { cause: error });
}
