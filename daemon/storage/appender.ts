import path from 'node:path';
import { MeridianError } from '../../lib/errors.js';
import { mayNameKey, setMember } from '../../lib/json-text.js';
import { formatTs, monotonicNow } from '../../lib/time.js';
import { Reading } from './current-view.js';
import { onlyCompressed, Restorations } from './restore-plain.js';
import { failedFile, writeFailure } from './disk-space.js';
import { envelopeLine } from './envelope-line.js';
import { errorCode } from './state-files.js';
import type { StoreCore } from './store-core.js';
import type {
  BatchRecorded, Recorded, RecordedCounts, RecordedEvent, RecordedListener, ValidEvent,
} from './store-types.js';
import type { Target } from './target.js';
import { WriteBatch, type BatchOutcome, type Queued } from './write-batch.js';
import { WriteFailures } from './write-failures.js';

// The append path: stamping events (seq, ts, run id), queueing them in the turn's write,
// writing a whole batch, and telling the view and the listeners what was written.

// at most this many lines wait for the write of one turn
const MAX_BATCH = 1024;

/** Stamps and writes events for one store; `onClockBack` is told when the site day went back. */
export class Appender {
  private readonly core: StoreCore;
  private readonly onClockBack: (dayFile: string) => void;
  private batch: WriteBatch | undefined;
  private lastTsMs = NaN;
  private lastTs = '';
  private readonly listeners = new Set<RecordedListener>();
  private readonly counts: RecordedCounts = { permanent: 0, ephemeral: 0 };
  /** Day files being decompressed to be appended to again (appends for them wait). */
  private readonly restorations = new Restorations();
  private readonly failures: WriteFailures;

  constructor(core: StoreCore, onClockBack: (dayFile: string) => void) {
    this.core = core;
    this.onClockBack = onClockBack;
    this.failures = new WriteFailures(core.opts.clock, core.opts.logger, core.paths.batch);
  }

  /** Listen to every recorded event; returns the function that stops listening. */
  onRecorded(listener: RecordedListener): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /** Events recorded since the daemon started, permanent and ephemeral apart. */
  recordedCounts(): RecordedCounts {
    return { ...this.counts };
  }

  /** Record one event in this turn's write; resolves once written (and synced in `always` mode). */
  append(event: ValidEvent): Promise<Recorded> {
    const restoring = this.dayRestored();
    return restoring ? restoring.then(() => this.append(event)) : this.appendNow(event);
  }

  private async appendNow(event: ValidEvent): Promise<Recorded> {
    const now = this.core.opts.clock.now();
    const batch = this.batchAt(now, false);
    const run = this.core.run;
    const entry = this.stamp(batch, event, now, monotonicNow(this.core.opts.clock));
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
    const synced = entry.permanent && file ? this.core.durability.written(file) : undefined;
    if (synced) await notSynced(synced, `The event was recorded as seq ${entry.reading.seq} in ${batch.target.path}`, 'it');
    return recorded;
  }

  /** Record a batch in one write (every line or none); see TelemetryStore.appendBatch. */
  appendBatch(events: ValidEvent[]): Promise<BatchRecorded> {
    const restoring = this.dayRestored();
    if (restoring) return restoring.then(() => this.appendBatch(events));
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

  /**
   * Write the queued lines now and put them in the view. Called at the end of the turn and
   * before anything that reads seqs, files or views (snapshot, run start/stop, day change).
   * A failed write consumes no seq; its appends answer 503.
   */
  writeQueued(): BatchOutcome | undefined {
    const batch = this.batch;
    if (!batch) return undefined;
    this.batch = undefined;
    const outcome = batch.write();
    if (outcome.failed > 0) {
      const n = batch.entries.length;
      const file = failedFile(outcome.error, batch.target.path);
      const code = errorCode(outcome.error);
      this.failures.failed(file, code, `write of ${n} line(s) to ${file} failed (${code}); ` +
        (outcome.failed === n ? 'not recorded (503)' : `written one at a time: ${n - outcome.failed} written, ${outcome.failed} not recorded (503)`));
      this.core.opts.observer?.writeFailed(batch.target.kind, outcome.failed);
      this.core.disk.failed(file, outcome.error);
      // reopened on next use; what was written is synced first (unless --fsync off)
      this.core.durability.closeTarget(batch.target);
      if (outcome.failed === n) return outcome;
    } else {
      this.failures.succeeded(batch.whole);
      this.core.disk.wrote();
    }
    const written = outcome.failed === 0 ? batch.entries : batch.entries.filter((e) => e.failure === undefined);
    for (const e of written) {
      if (e.makeCurrent) this.core.view.set(e.reading);
      if (e.permanent) this.counts.permanent++;
      else this.counts.ephemeral++;
    }
    if (this.listeners.size > 0) this.tell(batch.target, written);
    return outcome;
  }

  /** Stamp and write a whole batch now; throws 503 when the write failed. Returns the summary and the sync to wait for (`always`). */
  private writeWhole(events: ValidEvent[]): { recorded: BatchRecorded; synced: Promise<void> | undefined } {
    // lines of other requests of this turn go first, in their own write
    this.writeQueued();
    const now = this.core.opts.clock.now();
    const mono = monotonicNow(this.core.opts.clock);
    const batch = this.batchAt(now, true);
    const run = this.core.run;
    let permanent = false;
    for (const event of events) permanent = this.stamp(batch, event, now, mono).permanent || permanent;
    const { target, entries } = batch;
    const recorded: BatchRecorded = {
      recorded: entries.length, firstSeq: entries[0]!.reading.seq, lastSeq: entries.at(-1)!.reading.seq,
      target: target.kind, file: target.path, runId: run?.record.run_id,
    };
    const outcome = this.writeQueued()!;
    if (outcome.failed > 0) throw notWritten(target.path, outcome.error);
    return { recorded, synced: permanent && outcome.file ? this.core.durability.written(outcome.file) : undefined };
  }

  /** The batch of this turn for the target that takes events at `now` (a whole one, POST /events, is new). */
  private batchAt(now: number, whole: boolean): WriteBatch {
    const core = this.core;
    if (core.closed) throw new MeridianError('STORAGE_UNAVAILABLE', 'the daemon is shutting down; the event was not recorded');
    const run = core.run;
    const target = run ? run.target : core.site;
    if (!run) {
      const dayFile = core.days.fileAt(now);
      if (dayFile !== target.path) {
        this.writeQueued();
        this.assertPlainDay(dayFile);
        // the last file written: the open one, else a past day's left closed at start-up
        const last = target.path || core.closedSiteMark?.file || '';
        const back = last !== '' && path.basename(dayFile) < path.basename(last);
        core.durability.switchTarget(target, dayFile);
        if (back) this.onClockBack(dayFile);
      }
    }
    if (this.batch && this.batch.target !== target) this.writeQueued();
    return this.batch ??= this.openBatch(target, whole);
  }

  /**
   * When the site day of now is there only compressed (the clock went back to its day): its
   * decompression (streamed off the event loop, restore-plain.ts), which appends wait for;
   * undefined on every other append (no file is looked at unless the day changed). A damaged
   * file rejects each waiting append with 503 STORAGE_UNAVAILABLE naming it.
   */
  private dayRestored(): Promise<void> | undefined {
    const core = this.core;
    if (core.run || core.closed) return undefined;
    const dayFile = core.days.fileAt(core.opts.clock.now());
    if (dayFile === core.site.path) return undefined;
    return this.restorations.of(dayFile, core.io, (restored) => restored.then(() => {
      core.opts.logger.warn(`${dayFile}: decompressed to append to it again (the clock went back?)`);
    }, (error: unknown) => {
      throw this.damagedDay(dayFile, error);
    }));
  }

  /** The 503 for an append to a day whose `.gz` cannot be made plain (logged). */
  private damagedDay(dayFile: string, error: unknown): MeridianError {
    const reason = errorCode(error);
    this.core.opts.logger.error(`${dayFile}.gz is damaged (${reason}): events of its day cannot be appended to it; nothing recorded`);
    return new MeridianError('STORAGE_UNAVAILABLE',
      `the day file ${path.basename(dayFile)}.gz is damaged (${reason}) and cannot be appended to; nothing was recorded`);
  }

  /**
   * A day file is made plain before events go to it (dayRestored): one still compressed here
   * means the clock moved to its day in between; the event is refused (503), never written
   * beside its `.gz`, and the next one decompresses it.
   */
  private assertPlainDay(dayFile: string): void {
    if (!onlyCompressed(dayFile, this.core.io)) return;
    throw new MeridianError('STORAGE_UNAVAILABLE',
      `the day file ${path.basename(dayFile)}.gz was not yet decompressed to be appended to; nothing was recorded`);
  }

  /** Stamp an event with the batch's next seq and queue its line there; `mono`: when it was received (monotonic). */
  private stamp(batch: WriteBatch, event: ValidEvent, now: number, mono: number): Queued {
    const run = this.core.run;
    const seq = batch.nextSeq;
    const meta = !run ? event.meta : event.meta === '{}' ? run.emptyMeta : setMember(event.meta, 'run_id', run.idJson);
    const line = envelopeLine(seq, event.ts ?? this.tsAt(now), JSON.stringify(event.type), event.data, meta);
    // the reading carries the ts and own limit known here, so the judge never parses them back;
    // only when validation did not read the limit is the meta looked at (only one naming max_age_s can carry one)
    const tsMs = event.ts === undefined ? Math.trunc(now) : event.tsMs ?? NaN;
    const mayCarryLimit = event.maxAgeS === undefined ? mayNameKey(meta, 'max_age_s') : event.maxAgeS !== null;
    // the data text it was made of, so the rules read its fields without parsing (or flattening) the line
    const reading = new Reading(event.type, seq, line, mayCarryLimit, mono, tsMs, event.maxAgeS, now, event.data);
    const entry: Queued = { reading, makeCurrent: event.makeCurrent, permanent: event.storePermanently };
    batch.entries.push(entry);
    return entry;
  }

  /**
   * Start the batch of this turn; it is written once the turn's I/O callbacks have run. A
   * whole batch (POST /events: written whole or not at all) is written by its caller.
   */
  private openBatch(target: Target, whole: boolean): WriteBatch {
    // once a turn: today's site file moved away under the daemon goes on in a new file at its path
    if (target.kind === 'site' && target.reopenIfMoved()) {
      this.core.opts.logger.warn(`${target.path} was moved away or deleted while the daemon wrote to it (the file moved holds the site events up to site:${target.seq}); ` +
        'the next events go to a new file of that name');
    }
    const batch = new WriteBatch(target, whole);
    if (!whole) {
      setImmediate(() => {
        if (this.batch === batch) this.writeQueued();
      });
    }
    return batch;
  }

  /** Tell the listeners of the written entries of a batch, in seq order. */
  private tell(target: Target, written: readonly Queued[]): void {
    const stream = target.kind === 'site' ? 'site' : this.core.run!.record.run_id;
    for (const e of written) {
      const event: RecordedEvent = {
        reading: e.reading, stream, target: target.kind, file: target.path, makeCurrent: e.makeCurrent, permanent: e.permanent,
      };
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
}

/** Wait for the sync of written lines; a failure is 500 NOT_SYNCED: `what` (recorded) must not be sent again. */
export async function notSynced(synced: Promise<void>, recorded: string, what: 'it' | 'them'): Promise<void> {
  try {
    await synced;
  } catch (error) {
    throw new MeridianError('NOT_SYNCED', `${recorded}, but the sync to disk failed (${errorCode(error)}); ` +
      `do not send ${what} again: ${what === 'it' ? 'it' : 'they'} would be recorded twice.`, { cause: error });
  }
}

/** The 503 of an event whose line could not be written (DISK_FULL for lack of space): nothing was recorded, no seq used. */
function notWritten(file: string, error: unknown): MeridianError {
  return writeFailure(error, `Could not write to ${failedFile(error, file)} (${errorCode(error)}); the event was not recorded.`);
}
