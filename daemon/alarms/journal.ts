import type { Logger } from '../../lib/log.js';
import { formatTs } from '../../lib/time.js';
import { exactJson } from '../../lib/exact-json.js';
import { isNoSpace } from '../storage/disk-space.js';
import type { TelemetryStore } from '../storage/store.js';
import type { ValidEvent } from '../storage/store-types.js';
import type { AlarmRecord } from './machine.js';
import { writeAlarmState, type AlarmJournalState, type PendingEvent } from './state-file.js';

// Write-ahead for the alarm events (docs/alarms.md "The state file"): each `meridian.alarm` and
// `meridian.escalation` event gets a number (its meta `alarm_n`); the state file is written
// with the records and the events about to be recorded, the events go in one store batch
// (whole or absent across a crash), then the file is written again without them. At start-up,
// the pending events numbered above the newest one in the current view are recorded: a kill -9
// neither loses a transition or an escalation nor records one twice. A state file that cannot
// be written does not stop the alarms: the records in memory and the events go on (the events
// are the record) and `error` says why the state is not durable.

/** An event to record: type, data and its time (ms). */
export type JournalEvent = Omit<PendingEvent, 'n'>;

/** What the journal writes with. */
export interface JournalDeps {
  store: TelemetryStore;
  logger: Logger;
  file: string;
  /** Every alarm's record now. */
  records: () => ReadonlyMap<string, AlarmRecord>;
  /** Told of the events just recorded (their numbers). */
  recorded?: (numbers: ReadonlySet<number>) => void;
}

/** The alarm state file and the events written ahead of their recording. */
export class AlarmJournal {
  private readonly deps: JournalDeps;
  private last: number;
  private pending: PendingEvent[];
  private failure: string | undefined;
  /** Why the pending events could not be recorded at the last try (the error's message; undefined: they were). */
  private unrecorded: string | undefined;
  /** The batches recorded one after another (never two appends at once: the order is the numbers'). */
  private chain: Promise<void> = Promise.resolve();
  /** How many batches are chained and not yet done. */
  private queued = 0;
  /** The error of `failure` (its errno code tells a full disk). */
  private failureCause: unknown;

  /** `saved`: the journal of the state file at start-up. */
  constructor(deps: JournalDeps, saved: AlarmJournalState) {
    this.deps = deps;
    this.last = saved.n;
    this.pending = [...saved.pending];
  }

  /** Why the state file cannot be written now (undefined: it can: the state is durable). */
  get error(): string | undefined {
    return this.failure;
  }

  /** The number the next event prepared gets. */
  get next(): number {
    return this.last + 1;
  }

  /** Whether event `n` is numbered (or about to be: `next` and above) and not yet recorded. */
  isPending(n: number | undefined): boolean {
    return n !== undefined && (n > this.last || this.pending.some((p) => p.n === n));
  }

  /** Whether events are held back (written ahead, not recorded: a full disk). */
  get held(): boolean {
    return this.unrecorded !== undefined && this.pending.length > 0;
  }

  /** The error of the last failed write of the state file (its errno code tells a full disk). */
  get cause(): unknown {
    return this.failureCause;
  }

  /** The errno code of `failure` (ENOSPC: a full disk, where the store's batches are tried as ever). */
  private get failureCode(): string | undefined {
    return (this.failureCause as NodeJS.ErrnoException | undefined)?.code;
  }

  /** At start-up: record the pending events the log lacks (`newest`: the highest number in the current view). */
  recover(newest: number): Promise<void> {
    this.last = Math.max(this.last, newest);
    const missing = this.pending.filter((p) => p.n > newest);
    this.pending = missing;
    if (missing.length === 0) return Promise.resolve();
    this.deps.logger.warn(`alarm journal: ${missing.length} event(s) written ahead but not recorded before the daemon stopped are recorded now`);
    return this.record(missing);
  }

  /**
   * Number `events` and write the state with them pending (synchronously); `written` false when
   * the file could not be written (the reason in `error`, logged when it changes).
   */
  prepare(events: readonly JournalEvent[]): { batch: PendingEvent[]; written: boolean } {
    const batch = events.map((e) => ({ ...e, n: ++this.last }));
    this.pending.push(...batch);
    return { batch, written: this.write() };
  }

  /** Take back a batch whose state could not be written (a refused request): its numbers too, so none is skipped. */
  refuse(batch: readonly PendingEvent[]): void {
    this.drop(batch);
    if (batch.length > 0 && batch.at(-1)!.n === this.last) this.last -= batch.length;
  }

  private drop(batch: readonly PendingEvent[]): void {
    this.pending = this.pending.filter((p) => !batch.includes(p));
  }

  /**
   * Record `batch`: every pending event, in number order (one written ahead earlier and not yet
   * recorded goes first: a later transition never overtakes it), in one store batch, then write
   * the state without them. One batch at a time. A batch the store refuses (a full disk) stays
   * pending, in the state file as in memory, and is tried again every second until it is
   * recorded (`retry`); resolves once `batch` is recorded or kept pending.
   */
  record(batch: readonly PendingEvent[]): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    this.queued++;
    this.chain = this.chain.then(() => this.flush()).finally(() => { this.queued--; });
    return this.chain;
  }

  /** Try again what a full disk held back: the pending events, or the state file alone. */
  retry(): Promise<void> {
    if (this.queued > 0) return this.chain;
    if (this.pending.length > 0) return this.record(this.pending);
    if (this.failure !== undefined) this.write();
    return Promise.resolve();
  }

  private async flush(): Promise<void> {
    const batch = [...this.pending];
    if (batch.length === 0) return;
    const { logger } = this.deps;
    let done: readonly PendingEvent[];
    try {
      done = await this.append(batch);
    } catch (error) {
      // logged once a cause (hostile tester O: again at every count of the events held, 1, 2, 3...)
      const cause = (error as Error).message;
      if (cause !== this.unrecorded) logger.warn(`${batch.length} alarm event(s) could not be recorded (${cause}); they and any later ones are kept pending and recorded, in order, once the disk takes writes again`);
      this.unrecorded = cause;
      this.write();
      return;
    }
    if (this.unrecorded !== undefined) logger.info(`alarm events are recorded again (${batch.length} held back are recorded now)`);
    this.unrecorded = undefined;
    this.told(done);
    this.write();
  }

  // events appended: no longer pending, and the engine told
  private told(done: readonly PendingEvent[]): void {
    this.drop(done);
    this.deps.recorded?.(new Set(done.map((p) => p.n)));
  }

  /**
   * Append `batch` in one store batch (whole or absent across a crash); while the state file
   * cannot be written for another reason than a full disk (`.meridian/` read-only: neither can
   * the store's batch journal beside it),
   * or when the batch is refused for another reason than a full disk, one event at a time, in
   * number order (the events are the record: a transition is never lost for want of the
   * batch's atomicity). Throws when none could be appended; those appended are dropped first.
   */
  private async append(batch: readonly PendingEvent[]): Promise<readonly PendingEvent[]> {
    if (this.failure === undefined || this.failureCode === 'ENOSPC') {
      try {
        await this.deps.store.appendBatch(batch.map(envelopeOf));
        return batch;
      } catch (error) {
        // a full disk holds them back (they would not fit one at a time either); another refusal is tried event by event
        if (isNoSpace(error) || (error as { code?: unknown }).code === 'DISK_FULL') throw error;
      }
    }
    for (const [i, p] of batch.entries()) {
      try {
        await this.deps.store.append(envelopeOf(p));
      } catch (error) {
        if (i > 0) this.told(batch.slice(0, i));
        throw error;
      }
    }
    return batch;
  }

  /** Write the records and the journal; false (the reason kept in `error`) when it cannot be. */
  write(): boolean {
    try {
      writeAlarmState(this.deps.file, this.deps.records(), { n: this.last, pending: this.pending });
      if (this.failure !== undefined) this.deps.logger.info(`alarm state ${this.deps.file} is written again: the alarm state is durable`);
      this.failure = undefined;
      this.failureCause = undefined;
      return true;
    } catch (error) {
      const text = `the alarm state could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
      if (text !== this.failure) this.deps.logger.error(`alarm state ${this.deps.file}: ${text}; the alarms go on in memory and their events are recorded`);
      this.failure = text;
      this.failureCause = error;
      return false;
    }
  }
}

// the event's ts is the transition's time: the alarm's since (or escalated_at) and its event say the same instant
function envelopeOf(p: PendingEvent): ValidEvent {
  return { type: p.type, data: exactJson(p.data), makeCurrent: true, storePermanently: true, meta: JSON.stringify({ alarm_n: p.n }), ts: formatTs(p.at), tsMs: p.at };
}
