import fs from 'node:fs';
import type { FsyncMode } from '../../lib/config.js';
import { makeDirectory } from '../../lib/directories.js';
import { MeridianError } from '../../lib/errors.js';
import type { Logger } from '../../lib/log.js';
import { formatTs, type Clock } from '../../lib/time.js';
import type { Envelope, JsonObject, JsonValue, RunRecord, StoppedRunRecord } from '../../lib/wire.js';
import { CurrentView, type Reading } from './current-view.js';
import { ensurePlain, GZ } from './compressed.js';
import { Durability } from './durability.js';
import { replayTarget } from './recover.js';
import { prepareRunDir, reopenRunFile, unusableReason } from './run-dir.js';
import type { StorageObserver } from './observer.js';
import { assertSafeRunId, nextRunId, resolveRunDir } from './run-resolve.js';
import { SiteLock } from './site-lock.js';
import { listSiteFiles, SiteDays } from './site-days.js';
import {
  errorCode, newSnapshot, readActiveRun, readHeld, readSnapshot, removeIfExists, statePaths, writeJsonAtomic,
  type ActiveRunState, type SnapshotFile, type TargetMark,
} from './state-files.js';
import { nodeFs, type StorageFs } from './storage-fs.js';
import { Target, type TargetKind } from './target.js';
import { WriteBatch } from './write-batch.js';

// The storage module: the only code that touches the files. Handlers call these methods.

export const RUN_FILE = 'telemetry.ndjson';
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
}

/** An active run that could not resume at start-up (its directory is not usable): events go to the site file. */
export interface SuspendedRun {
  record: RunRecord;
  /** Why it could not resume, e.g. `ENOENT`. */
  reason: string;
}

/** An event that passed validation. */
export interface ValidEvent {
  type: string;
  data: JsonValue;
  makeCurrent: boolean;
  meta: JsonObject;
}

/** A run start request that passed validation (ids and dirs are checked by the store). */
export interface ValidRunStart {
  runDir?: string;
  runId?: string;
  meta: JsonObject;
}

/** A recorded event: the envelope, its line (without newline) and where it went. */
export interface Recorded {
  envelope: Envelope;
  json: string;
  target: TargetKind;
  file: string;
}

/** An event as it was recorded, for the listeners of `onRecorded` (streams, forwarders, metrics). */
export interface RecordedEvent {
  /** The envelope and its JSON line (without newline). */
  reading: Reading;
  /** `site`, or the run's id: the seq counter the envelope belongs to. */
  stream: string;
  target: TargetKind;
  /** The file the line went to. */
  file: string;
  makeCurrent: boolean;
}

/** Called once per recorded event, in seq order, after its line was handed to the OS. */
export type RecordedListener = (event: RecordedEvent) => void;

interface ActiveRun {
  record: RunRecord;
  target: Target;
  startOffset: number;
}

/** Appends envelopes to site and run files, keeps the current view, survives restarts. */
export class TelemetryStore {
  readonly view = new CurrentView();
  private readonly opts: StoreOptions;
  private readonly paths: ReturnType<typeof statePaths>;
  private readonly days: SiteDays;
  private readonly durability: Durability;
  private readonly site: Target;
  private run: ActiveRun | undefined;
  private snapshotAt = '';
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private batch: WriteBatch | undefined;
  private lastTsMs = NaN;
  private lastTs = '';
  private readonly listeners = new Set<RecordedListener>();
  private readonly io: StorageFs;
  private readonly lock: SiteLock;
  private suspended: SuspendedRun | undefined;
  /** True while a batch is queued: its lines must go out in one write. */
  private grouping = false;

  private constructor(opts: StoreOptions, siteSeq: number, siteFile: string, lock: SiteLock) {
    this.opts = opts;
    this.io = opts.fs ?? nodeFs;
    this.lock = lock;
    this.paths = statePaths(opts.siteDir);
    this.days = new SiteDays(opts.siteDir, opts.zone);
    this.durability = new Durability(opts.fsync, opts.logger, opts.observer);
    this.site = new Target('site', siteFile, siteSeq, this.paths.heldSite, this.io);
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
    fs.accessSync(opts.siteDir, fs.constants.W_OK);
    const lock = SiteLock.acquire(paths.dir, opts.siteDir, (m) => opts.logger.warn(m));
    try {
      return TelemetryStore.recover(opts, lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  private static recover(opts: StoreOptions, lock: SiteLock): TelemetryStore {
    const paths = statePaths(opts.siteDir);
    const { logger } = opts;
    const warn = (m: string) => logger.warn(m);
    let snap = readSnapshot(paths.snapshot);
    if (snap instanceof Error) {
      logger.warn(`${snap.message}; replaying the files instead`);
      snap = undefined;
    }
    const siteFiles = listSiteFiles(opts.siteDir);
    if (!snap && siteFiles.length > 0) logger.warn(`no usable snapshot; replaying ${siteFiles.length} site file(s)`);
    const site = replayTarget(siteFiles, snap?.site, readHeld(paths.heldSite, warn), logger, 'site');
    // a compressed last file is closed: the first event opens the file of its own day
    const last = siteFiles.at(-1);
    const store = new TelemetryStore(opts, site.seq, last && !last.endsWith(GZ) ? last : '', lock);
    for (const reading of site.readings.values()) store.view.set('site', reading);
    const active = readActiveRun(paths.activeRun, warn);
    if (active) store.resumeRun(active, snap?.run ?? null);
    // a fresh snapshot also drops held seqs that a crash left without their line
    try {
      store.snapshot();
    } catch (error) {
      logger.error(`could not write the snapshot ${paths.snapshot} (${errorCode(error)}); until it can be written, a start replays the files`);
    }
    const runState = store.run ? store.run.record.run_id : store.suspended ? `${store.suspended.record.run_id} (suspended)` : 'none';
    logger.info(`recovered: site seq ${site.seq} (${site.replayed} line(s) replayed), ` +
      `${store.view.entries('site').length} type(s) current, run ${runState}`);
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

  /** The data files that may be written to now (the day file in use, today's, the active run's): housekeeping never touches them. */
  filesInUse(): string[] {
    const files = [this.days.fileAt(this.opts.clock.now())];
    if (this.site.path) files.push(this.site.path);
    if (this.run) files.push(this.run.target.path);
    return files;
  }

  /** The active run's record, or undefined. */
  activeRun(): RunRecord | undefined {
    return this.run?.record;
  }

  /** The run that was active but could not resume at start-up, or undefined. */
  suspendedRun(): SuspendedRun | undefined {
    return this.suspended;
  }

  /**
   * Record one event: stamp seq and ts, queue its line for the write of this event-loop
   * turn, update the current view. Resolves once the line is written (and synced in
   * `always` mode). The events of one turn share one write, in seq order.
   */
  async append(event: ValidEvent): Promise<Recorded> {
    if (this.closed) throw new MeridianError('STORAGE_UNAVAILABLE', 'the daemon is shutting down; the event was not recorded');
    const now = this.opts.clock.now();
    const run = this.run;
    const target = run ? run.target : this.site;
    if (!run) {
      const dayFile = this.days.fileAt(now);
      if (dayFile !== target.path) {
        this.writeQueued();
        if (ensurePlain(dayFile)) this.opts.logger.warn(`${dayFile}: decompressed to append to it again (the clock went back?)`);
        this.durability.switchTarget(target, dayFile);
      }
    }
    if (this.batch && this.batch.target !== target) this.writeQueued();
    const batch = this.batch ??= this.openBatch(target);
    const seq = batch.nextSeq;
    const meta = run ? { ...event.meta, run_id: run.record.run_id } : event.meta;
    const envelope: Envelope = { seq, ts: this.tsAt(now), type: event.type, data: event.data, meta };
    const json = JSON.stringify(envelope);
    batch.entries.push({ reading: { envelope, json }, makeCurrent: event.makeCurrent });
    if (batch.entries.length >= MAX_BATCH && !this.grouping) this.writeQueued();
    let file;
    try {
      file = await batch.done;
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new MeridianError('STORAGE_UNAVAILABLE',
        `Could not write to ${batch.target.path} (${reason}); the event was not recorded.`, { cause: error });
    }
    const synced = this.durability.written(file);
    if (synced) {
      try {
        await synced;
      } catch (error) {
        throw new MeridianError('STORAGE_UNAVAILABLE',
          `The event was written as seq ${seq} but could not be synced to disk (${(error as Error).message}).`, { cause: error });
      }
    }
    return { envelope, json, target: target.kind, file: batch.target.path };
  }

  /**
   * Record a batch: its events get consecutive seqs in batch order and go out in one write
   * (and, in `always` mode, one sync round), so either every line is written or none. Rejects
   * like `append` (503) when the write or the sync fails.
   */
  appendBatch(events: ValidEvent[]): Promise<Recorded[]> {
    // lines of other requests of this turn go first, in their own write
    this.writeQueued();
    this.grouping = true;
    let pending: Promise<Recorded>[];
    try {
      // a noon boundary passing inside this loop would split the batch between two day files
      pending = events.map((event) => this.append(event));
    } finally {
      this.grouping = false;
    }
    this.writeQueued();
    return Promise.all(pending);
  }

  /** Start a run: resolve id and directory, continue the run file's seq, open an empty run view. */
  startRun(req: ValidRunStart): RunRecord {
    this.writeQueued();
    if (this.run) {
      throw new MeridianError('RUN_ACTIVE', `Run ${this.run.record.run_id} is already active; stop it first.`);
    }
    const metaId = req.meta.run_id;
    if (req.runId === undefined && metaId !== undefined && typeof metaId !== 'string') {
      throw new MeridianError('INVALID_RUN', 'meta.run_id must be a string when it names the run');
    }
    const runId = req.runId ?? (metaId as string | undefined) ?? nextRunId(this.opts.siteDir);
    assertSafeRunId(runId, req.runId !== undefined ? 'run_id' : metaId !== undefined ? 'meta.run_id' : 'run id');
    const place = resolveRunDir(this.opts.siteDir, runId, req.runDir);
    const prepared = prepareRunDir(this.opts.siteDir, place, RUN_FILE, this.opts.logger, this.io);
    const runDir = place.dir;
    const record: RunRecord = {
      run_dir: runDir, run_id: runId, meta: { ...req.meta, run_id: runId }, started_at: formatTs(this.opts.clock.now()),
    };
    const target = new Target('run', prepared.file, prepared.seq, this.paths.heldRun, this.io);
    const startOffset = prepared.size;
    const state: ActiveRunState = { record, start_offset: startOffset };
    // the record is the commit point: written whole, or the start did not happen
    try {
      target.dropHeld();
      writeJsonAtomic(this.paths.activeRun, state, this.io);
    } catch (error) {
      target.close(false);
      prepared.undo();
      throw new MeridianError('STORAGE_UNAVAILABLE',
        `Could not record the start of run ${runId} (${errorCode(error)}); no run was started.`, { cause: error });
    }
    if (this.suspended) this.opts.logger.warn(`run ${runId} replaces the suspended run ${this.suspended.record.run_id}`);
    this.suspended = undefined;
    this.run = { record, target, startOffset };
    this.view.openRun();
    this.opts.logger.info(`run ${runId} started in ${runDir} (seq continues after ${prepared.seq})`);
    return record;
  }

  /**
   * Stop the active run (or end a suspended one): forget it across restarts, close its file,
   * discard its view. When that cannot be recorded the run stays as it was (503).
   */
  stopRun(): StoppedRunRecord {
    this.writeQueued();
    const run = this.run;
    const record = run?.record ?? this.suspended?.record;
    if (!record) throw new MeridianError('NO_ACTIVE_RUN', 'No run is active.');
    // removing the record is the commit point
    try {
      removeIfExists(this.paths.activeRun, this.io);
    } catch (error) {
      throw new MeridianError('STORAGE_UNAVAILABLE', `Could not record the stop of run ${record.run_id} ` +
        `(${errorCode(error)}); it is still ${run ? 'active' : 'suspended'}, try again.`, { cause: error });
    }
    const stopped = { ...record, stopped_at: formatTs(this.opts.clock.now()) };
    if (!run) {
      this.suspended = undefined;
      this.opts.logger.info(`suspended run ${record.run_id} ended`);
      return stopped;
    }
    this.run = undefined;
    this.durability.closeTarget(run.target);
    this.view.closeRun();
    try {
      run.target.dropHeld();
      this.snapshot();
    } catch (error) {
      this.opts.logger.error(`run ${record.run_id} stopped, but the snapshot after it failed (${errorCode(error)}); the next start replays the files`);
    }
    this.opts.logger.info(`run ${record.run_id} stopped at seq ${run.target.seq}`);
    return stopped;
  }

  /** Write the snapshot now: sync the files, then the marks and views atomically. */
  snapshot(): void {
    this.writeQueued();
    const site = this.site.path ? this.mark(this.site, 'site') : null;
    const run = this.run
      ? { ...this.mark(this.run.target, 'run'), run_id: this.run.record.run_id, started_at: this.run.record.started_at }
      : null;
    const snap: SnapshotFile = newSnapshot(formatTs(this.opts.clock.now()), site, run);
    writeJsonAtomic(this.paths.snapshot, snap, this.io);
    // every held seq is now covered by the snapshot's views
    this.site.dropHeld();
    this.run?.target.dropHeld();
    this.snapshotAt = this.changeMark();
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

  /** Start the batch of this turn; it is written once the turn's I/O callbacks have run. */
  private openBatch(target: Target): WriteBatch {
    const batch = new WriteBatch(target);
    setImmediate(() => {
      if (this.batch === batch) this.writeQueued();
    });
    return batch;
  }

  /**
   * Write the queued lines now and put them in the view. Called at the end of the turn and
   * before anything that reads seqs, files or views (snapshot, run start/stop, day change).
   * A failed write consumes no seq; its appends answer 503.
   */
  private writeQueued(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    try {
      batch.write();
    } catch (error) {
      this.opts.logger.error(`write of ${batch.entries.length} line(s) to ${batch.target.path} failed (${errorCode(error)}); answered 503`);
      this.opts.observer?.writeFailed(batch.target.kind, batch.entries.length);
      // reopened on next use; what earlier writes left unsynced is synced first (unless --fsync off)
      this.durability.closeTarget(batch.target);
      return;
    }
    for (const e of batch.entries) if (e.makeCurrent) this.view.set(batch.target.kind, e.reading);
    if (this.listeners.size === 0) return;
    const target = batch.target;
    const stream = target.kind === 'site' ? 'site' : this.run!.record.run_id;
    for (const e of batch.entries) {
      const event: RecordedEvent = { reading: e.reading, stream, target: target.kind, file: target.path, makeCurrent: e.makeCurrent };
      for (const listener of this.listeners) listener(event);
    }
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

  private mark(target: Target, kind: TargetKind): TargetMark {
    const file = target.open();
    this.durability.beforeMark(file);
    return { file: target.path, offset: file.size, seq: target.seq, current: this.view.entries(kind).map((r) => r.envelope) };
  }

  /**
   * Make the run of the state file active again; when its run file is not there or not
   * usable (a disk not mounted, a directory removed, a name the daemon keeps), suspend it
   * instead: events go to the site file.
   */
  private resumeRun(state: ActiveRunState, mark: SnapshotFile['run']): void {
    const { record } = state;
    const { logger } = this.opts;
    let reopened;
    try {
      reopened = reopenRunFile(this.opts.siteDir, RUN_FILE, state, mark, readHeld(this.paths.heldRun, (m) => logger.warn(m)), logger);
    } catch (error) {
      this.suspended = { record, reason: unusableReason(error) };
      logger.error(`run ${record.run_id} cannot resume: its run_dir ${record.run_dir} is not usable (${this.suspended.reason}). ` +
        'The run is suspended: events go to the site file until it is stopped (POST /run/stop) ' +
        'or the daemon is restarted with the directory back');
      return;
    }
    const target = new Target('run', reopened.file, reopened.seq, this.paths.heldRun, this.io);
    this.run = { record, target, startOffset: state.start_offset };
    this.view.openRun();
    for (const reading of reopened.readings) this.view.set('run', reading);
    logger.info(`run ${record.run_id} is active again (seq ${target.seq})`);
  }
}
