import { MeridianError } from '../../lib/errors.js';
import { formatTs } from '../../lib/time.js';
import type { RunBook, ValidRunStart } from './run-book.js';
import { writeFailure } from './disk-space.js';
import { errorCode, removeIfExists, writeActiveRun, type ActiveRunState } from './state-files.js';
import { activeRunOf, type StoreCore } from './store-core.js';
import { Target } from './target.js';
import { UNKNOWN_END, type Segment } from './timeline.js';
import { maxSeq } from '../ndjson/ends.js';
import { isRegularFile } from '../ndjson/regular.js';

// The run start/stop protocol: what is written in which order so that a crash at any point
// leaves either the run started (or stopped) or not, never half of it.

/** Starts and stops the runs of one store; `flush` writes this turn's queued lines, `snapshot` writes the snapshot. */
export class RunProtocol {
  private readonly core: StoreCore;
  private readonly runBook: RunBook;
  private readonly flush: () => void;
  private readonly snapshot: () => void;

  constructor(core: StoreCore, runBook: RunBook, flush: () => void, snapshot: () => void) {
    this.core = core;
    this.runBook = runBook;
    this.flush = flush;
    this.snapshot = snapshot;
  }

  /** Start a run (see TelemetryStore.startRun); answers the record as JSON text. */
  start(req: ValidRunStart): string {
    const core = this.core;
    const { logger } = core.opts;
    this.flush();
    if (core.run) {
      throw new MeridianError('RUN_ACTIVE', `Run ${core.run.record.run_id} is already active; stop it first.`);
    }
    const resolved = this.runBook.resolve(req, formatTs(core.opts.clock.now()), logger, core.io, (id) => highestSeqOf(core.timeline.segments(), id, core.opts.clock.now()));
    const { record, recordJson, file, seq } = resolved;
    const target = new Target('run', file, seq, core.paths.run, core.io, core.journal);
    // the record is the commit point: written whole, or the start did not happen
    try {
      target.dropSideFiles();
      // the journal first: a crash before the record leaves a start the next open closes again
      core.timeline.runStarted(record.run_id, file, core.site.seq, seq, record.started_at);
      const state: ActiveRunState = { record, record_json: recordJson, start_offset: resolved.size, start_seq: seq };
      writeActiveRun(core.paths.activeRun, state, core.places, core.io);
    } catch (error) {
      target.close(false);
      core.timeline.undoStart(record.run_id, file, core.site.seq, seq, record.started_at);
      resolved.undo();
      core.disk.failed(core.paths.dir, error);
      throw writeFailure(error, `Could not record the start of run ${record.run_id} (${errorCode(error)}); no run was started.`);
    }
    core.disk.wrote();
    try {
      this.runBook.started(record);
    } catch (error) {
      core.disk.failed(core.paths.runs, error);
      logger.warn(`could not note run ${record.run_id} in ${core.paths.runs} (${errorCode(error)})`);
    }
    if (core.suspended) logger.warn(`run ${record.run_id} replaces the suspended run ${core.suspended.record.run_id}`);
    core.suspended = undefined;
    core.run = activeRunOf(record, recordJson, target);
    logger.info(`run ${record.run_id} started in ${record.run_dir} (seq continues after ${seq})`);
    return recordJson;
  }

  /** Stop the active (or suspended) run (see TelemetryStore.stopRun); answers the record with `stopped_at`. */
  stop(): string {
    const core = this.core;
    this.flush();
    const run = core.run;
    if (!run && !core.suspended) throw new MeridianError('NO_ACTIVE_RUN', 'No run is active.');
    if (!run) return this.endSuspended();
    // first the snapshot, still with the run's mark: a crash before the record is removed
    // finds the run active again with nothing to replay. A snapshot that fails does not stop
    // the stop (the next start replays the files); removing the record is the commit point.
    let snapshotFailure: unknown;
    try {
      this.snapshot();
    } catch (error) {
      snapshotFailure = error;
    }
    const stoppedAt = formatTs(core.opts.clock.now());
    const { run_id: runId } = run.record;
    try {
      // the journal says it first (a crash in between: the next open journals the run going on)
      core.timeline.runStopped(runId, run.target.path, core.site.seq, run.target.seq, stoppedAt);
      removeIfExists(core.paths.activeRun, core.io);
    } catch (error) {
      core.timeline.undoStop(runId, run.target.path, core.site.seq, run.target.seq, stoppedAt);
      core.disk.failed(core.paths.dir, error);
      throw writeFailure(error, `Could not record the stop of run ${runId} (${errorCode(error)}); it is still active, try again.`);
    }
    const { logger } = core.opts;
    if (snapshotFailure !== undefined) {
      logger.error(`run ${runId} stopped, but the snapshot after it failed (${errorCode(snapshotFailure)}); the next start replays the files`);
    }
    core.run = undefined;
    core.durability.closeTarget(run.target);
    run.target.dropSideFiles();
    try {
      this.runBook.stopped(run.record, run.target.seq);
    } catch (error) {
      core.disk.failed(core.paths.runs, error);
      logger.warn(`could not note the last seq of run ${runId} in ${core.paths.runs} (${errorCode(error)})`);
    }
    logger.info(`run ${runId} stopped at seq ${run.target.seq}`);
    return `${run.recordJson.slice(0, -1)},"stopped_at":"${stoppedAt}"}`;
  }

  /** End the run that could not resume at start-up: removing its record is the commit point. */
  private endSuspended(): string {
    const core = this.core;
    const suspended = core.suspended!;
    try {
      removeIfExists(core.paths.activeRun, core.io);
    } catch (error) {
      core.disk.failed(core.paths.dir, error);
      throw writeFailure(error, `Could not record the stop of run ${suspended.record.run_id} (${errorCode(error)}); it is still suspended, try again.`);
    }
    core.suspended = undefined;
    try {
      // an unknown end (seqs given while its file was away): noted, so the id started again repeats none (run-book.ts)
      this.runBook.stopped(suspended.record, suspended.lastSeq, !suspended.exact);
    } catch (error) {
      core.disk.failed(core.paths.runs, error);
    }
    core.opts.logger.info(`suspended run ${suspended.record.run_id} ended`);
    return JSON.stringify({ ...suspended.record, stopped_at: formatTs(core.opts.clock.now()) });
  }
}

/**
 * The highest seq the timeline records for a run id, in any of its segments (any run_dir). A
 * segment whose end is unknown (a run that could not resume after a crash) counts what its
 * file holds when it is back, else the clock in ms since 1970 (as the site seq does: a count
 * no run reaches, so no seq is given twice).
 */
function highestSeqOf(segments: readonly Segment[], runId: string, now: number): number {
  let seq = 0;
  for (const s of segments) {
    if (s.stream !== runId) continue;
    if (s.to === UNKNOWN_END) seq = Math.max(seq, s.after, s.file !== undefined && isRegularFile(s.file) ? maxSeq(s.file).seq : Math.floor(now));
    else seq = Math.max(seq, s.after, Number.isFinite(s.to) ? s.to : 0);
  }
  return seq;
}
