import { MeridianError } from '../../lib/errors.js';
import type { Logger } from '../../lib/log.js';
import { monotonicNow, type Clock } from '../../lib/time.js';
import type { AlarmAnswer } from '../../lib/wire.js';
import type { FreshnessJudge } from '../freshness/judge.js';
import type { TelemetryStore } from '../storage/store.js';
import { writeFailure } from '../storage/disk-space.js';
import type { AlarmSpec } from './config.js';
import { alarmAnswer, compareAnswers } from './answer.js';
import { activeOf, ALARM_TYPE, changed, due, ESCALATION_TYPE, escalationData, sameRaised, transitionData } from './events.js';
import { lookContext, ScopeRounds } from './expression.js';
import { lookAtLevels } from './levels.js';
import { freshRecord, looked, onAck, onActivity, onShelve, onUnshelve, rank, type AlarmRecord, type Transition } from './machine.js';
import { emptyDeadlines, inputTypes, monoDeadlines, nextWake } from './wake.js';
import { WakeTimer } from './wake-timer.js';
import { reloaded } from './reload.js';
import { notUnacked, unseen, type AckSeen } from './ack-guard.js';
import { numberOf, quietLook, type Alarm } from './alarm.js';
import { readAlarmState } from './state-file.js';
import { AlarmJournal, type JournalEvent } from './journal.js';

// The alarms as the daemon runs them: each alarm's levels are looked at when a reading of a type
// they read is recorded, when a debounce completes, when an input's age passes its limit, and
// every interval; a transition is written ahead to the state file, then recorded as one
// `meridian.alarm` event (daemon/alarms/journal.ts). An alarm left unacknowledged past `escalate_after` records one
// `meridian.escalation` event, which the [[notify]] sinks deliver (daemon/forward/notify.ts).

export { ALARM_TYPE, ESCALATION_TYPE } from './events.js';

/** What the engine runs on. */
export interface AlarmEngineDeps {
  specs: readonly AlarmSpec[];
  store: TelemetryStore;
  judge: FreshnessJudge;
  clock: Clock;
  logger: Logger;
  /** The state file (`.meridian/alarms.json`). */
  file: string;
  /** How often every alarm is looked at besides the events that wake it (ms; 0: only those). */
  intervalMs: number;
  /** The scopes it shares with the safety verdict (one per instant); its own when not given. */
  rounds?: ScopeRounds;
}

/** Runs the configured alarms. */
export class AlarmEngine {
  private readonly deps: AlarmEngineDeps;
  private readonly alarms = new Map<string, Alarm>();
  /** The alarms that read each type. */
  private readonly byType = new Map<string, Alarm[]>();
  /** The alarms a recorded reading may have changed, each with when (monotonic ms) the first such reading came. */
  /** The alarms a reading made dirty since the last look at them, in the order they became so (an entry behind the alarm's listedAt is left over). */
  private dirty: Alarm[] = [];
  private readonly listeners = new Set<(alarm: AlarmAnswer) => void>();
  private soon: NodeJS.Immediate | undefined;
  private readonly timer = new WakeTimer(() => this.mono(), () => this.lookAt([...this.alarms.values()]));
  private interval: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;
  private stopped = false;
  private readonly journal: AlarmJournal;
  private readonly rounds: ScopeRounds;

  /** Reads the state file (a damaged one is reported and set aside: before the daemon says it listens). */
  constructor(deps: AlarmEngineDeps) {
    this.deps = deps;
    const { specs, logger, file, clock, store } = deps;
    this.rounds = deps.rounds ?? new ScopeRounds(deps.judge, store.view);
    const records = () => new Map([...this.alarms].map(([id, a]) => [id, a.record]));
    const journalDeps = { store, logger, file, records, recorded: (ns: ReadonlySet<number>) => this.escalationsRecorded(ns) };
    if (specs.length === 0) {
      this.journal = new AlarmJournal(journalDeps, { n: 0, pending: [] });
      return;
    }
    const saved = readAlarmState(file, (m) => logger.error(m), clock.now());
    this.journal = new AlarmJournal(journalDeps, saved.journal);
    for (const spec of specs) {
      const worst = spec.levels.reduce((w, l) => (rank(l.severity) > rank(w) ? l.severity : w), spec.levels[0]!.severity);
      const stored = saved.records.get(spec.id);
      const record = stored ? reloaded(spec, worst, stored, clock.now(), (line) => logger.warn(line)) : freshRecord(worst, clock.now());
      const alarm: Alarm = { spec, types: inputTypes(spec), worst, record, pending: new Map(), wake: Infinity, clocks: emptyDeadlines(), dirtyAt: undefined, escalation: undefined, listedAt: -1 };
      this.alarms.set(spec.id, alarm);
      for (const type of alarm.types) {
        this.byType.set(type, [...(this.byType.get(type) ?? []), alarm]);
      }
    }
  }

  /** Whether any alarm is configured. */
  get configured(): boolean {
    return this.deps.specs.length > 0;
  }

  /** Why the alarm state is not durable now (the state file cannot be written), undefined when it is. */
  get stateError(): string | undefined {
    return this.journal.error;
  }

  /** Record the events a crash left written ahead only, look at every alarm, then follow the store and the clock. */
  start(): void {
    const { specs, store, judge, clock } = this.deps;
    if (specs.length === 0) return;
    const now = clock.now();
    const newest = Math.max(0, ...[ALARM_TYPE, ESCALATION_TYPE].map((t) => numberOf(judge.judge(t, now)?.reading?.envelope.meta)));
    void this.journal.recover(newest);
    this.stopListening = store.onRecorded((event) => {
      const readers = event.makeCurrent ? this.byType.get(event.reading.type) : undefined;
      if (!readers) return;
      let at: number | undefined;
      for (const alarm of readers) {
        if (alarm.dirtyAt !== undefined) continue;
        alarm.dirtyAt = at ??= this.mono();
        alarm.listedAt = this.dirty.push(alarm) - 1;
      }
      this.soon ??= setImmediate(() => this.lookAtDirty());
    });
    if (this.deps.intervalMs > 0) {
      this.interval = setInterval(() => this.lookAt([...this.alarms.values()]), this.deps.intervalMs);
      this.interval.unref();
    }
    this.lookAt([...this.alarms.values()]);
  }

  /** Stop looking (at shutdown, before the store closes). */
  stop(): void {
    this.stopped = true;
    this.stopListening?.();
    if (this.soon) clearImmediate(this.soon);
    this.timer.stop();
    clearInterval(this.interval);
  }

  /** Call `listener` with an alarm each time its state, severity, activity or judgeability changes. */
  onChange(listener: (alarm: AlarmAnswer) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every alarm, worst severity first, then by id. */
  list(): AlarmAnswer[] {
    this.settle();
    return [...this.alarms.values()].map((a) => this.answer(a)).sort(compareAnswers);
  }

  /** Whether an alarm `id` is configured. */
  has(id: string): boolean {
    return this.alarms.has(id);
  }

  /** The alarm `id`; 404 UNKNOWN_ALARM when none is configured. */
  get(id: string): AlarmAnswer {
    this.settle();
    const alarm = this.find(id);
    return this.answer(alarm);
  }

  /**
   * Acknowledge `id` (409 ALARM_NOT_UNACKED when there is nothing to acknowledge); `seen`: the
   * severity and since the client showed, 409 ALARM_CHANGED (with the alarm now) when it no longer has them.
   */
  async ack(id: string, by: string, note: string | undefined, seen: AckSeen = {}): Promise<AlarmAnswer> {
    this.settle();
    const alarm = this.find(id);
    const now = this.deps.clock.now();
    const done = onAck(id, alarm.record, by, note, { worst: alarm.worst, now });
    if (!done) throw notUnacked(id, alarm.record);
    const changedUnder = unseen(id, alarm.record, seen);
    if (changedUnder) throw new MeridianError('ALARM_CHANGED', changedUnder, { fields: { alarm: this.answer(alarm) } });
    await this.change(alarm, done.record, done.transition, now);
    return this.answer(alarm);
  }

  /** Shelve `id` for `forMs`: no transitions, no escalation until then. */
  async shelve(id: string, by: string, forMs: number): Promise<AlarmAnswer> {
    this.settle();
    const alarm = this.find(id);
    const now = this.deps.clock.now();
    const done = onShelve(id, alarm.record, by, now + forMs, now);
    await this.change(alarm, done.record, done.transition, now);
    // its end taken on the monotonic clock, and the timer set to it
    this.lookAt([alarm]);
    return this.answer(alarm);
  }

  /** Unshelve `id` (409 ALARM_NOT_SHELVED when it is not shelved). */
  async unshelve(id: string, by: string | undefined): Promise<AlarmAnswer> {
    this.settle();
    const alarm = this.find(id);
    if (alarm.record.state !== 'shelved') throw new MeridianError('ALARM_NOT_SHELVED', `Alarm ${id} is not shelved (it is ${alarm.record.state}).`);
    const now = this.deps.clock.now();
    const done = onUnshelve(id, alarm.record, activeOf(alarm.record), by, { worst: alarm.worst, now });
    await this.change(alarm, done.record, done.transition, now);
    return this.answer(alarm);
  }

  /** The alarm as the API shows it: its escalation only once its event is recorded (docs/alarms.md "The state file"). */
  private answer(alarm: Alarm): AlarmAnswer {
    const shown = alarmAnswer(alarm.spec, alarm.record);
    return this.journal.isPending(alarm.escalation) ? { ...shown, escalated_at: null } : shown;
  }

  /** Events `ns` are recorded: an alarm whose escalation is among them now shows it. */
  private escalationsRecorded(ns: ReadonlySet<number>): void {
    for (const alarm of this.alarms.values()) {
      if (alarm.escalation === undefined || !ns.has(alarm.escalation)) continue;
      alarm.escalation = undefined;
      for (const l of this.listeners) l(this.answer(alarm));
    }
  }

  private find(id: string): Alarm {
    const alarm = this.alarms.get(id);
    if (!alarm) throw new MeridianError('UNKNOWN_ALARM', `No alarm ${JSON.stringify(id)} is configured.`);
    return alarm;
  }

  /**
   * Look now at the alarms the readings of this turn made dirty (otherwise looked at after the
   * turn): an answer, an acknowledgement or a shelf after a POST answered is of the alarm as
   * that reading left it (as GET /safety judges before it answers).
   */
  private settle(): void {
    if (this.soon === undefined) return;
    clearImmediate(this.soon);
    this.lookAtDirty();
  }

  private lookAtDirty(): void {
    this.soon = undefined;
    const listed = this.dirty;
    this.dirty = [];
    // an alarm looked at since it was listed (by a full look) is not dirty, one listed again is looked at in its later place
    const alarms: Alarm[] = [];
    for (let i = 0; i < listed.length; i++) {
      const alarm = listed[i]!;
      if (alarm.dirtyAt !== undefined && alarm.listedAt === i) alarms.push(alarm);
    }
    this.lookAt(alarms);
  }

  /** Judge `alarms` now: record their transitions and escalations, then set the timer to the next thing due. */
  private lookAt(alarms: readonly Alarm[]): void {
    if (this.stopped) return;
    const now = this.deps.clock.now();
    const mono = this.mono();
    // every alarm of this look reads each type once, at one instant
    const ctx = lookContext(this.rounds, now);
    const events: JournalEvent[] = [];
    let durable = false;
    let wake = Infinity;
    for (const alarm of alarms) {
      const { spec, record } = alarm;
      // a debounce starts when the reading that made the condition hold was recorded, not when it was looked at
      const seenAt = alarm.dirtyAt ?? mono;
      alarm.dirtyAt = undefined;
      if (quietLook(alarm, ctx, now, mono)) {
        wake = Math.min(wake, alarm.wake);
        continue;
      }
      const look = lookAtLevels(spec.levels, record.raised, alarm.pending, spec.forMs, ctx, { at: seenAt, now: mono });
      // an input that cannot be read keeps the value last read (the reason says why it is not current)
      const value = look.value === null && look.unknown !== null ? record.value : look.value;
      const seen = looked(record, look.raised, value, look.unknown);
      let next = onActivity(spec.id, seen, look.active, { latch: spec.latch, worst: alarm.worst, now, was: activeOf(record) });
      const transitions: Transition[] = next.transition ? [next.transition] : [];
      // a shelf ends, and an escalation falls due, on the monotonic clock: a wall-clock step moves neither
      const clocks = monoDeadlines(alarm.clocks, next.record, spec, now, mono);
      if (next.record.state === 'shelved' && clocks.shelfEnd <= mono) {
        const out = onUnshelve(spec.id, next.record, look.active, undefined, { worst: alarm.worst, now });
        next = out;
        transitions.push(out.transition);
      }
      const escalate = due(spec, next.record) && monoDeadlines(clocks, next.record, spec, now, mono).escalateAt <= mono;
      if (escalate) next = { record: { ...next.record, escalated_at: now } };
      durable ||= transitions.length > 0 || escalate || !sameRaised(record.raised, look.raised);
      for (const t of transitions) events.push({ type: ALARM_TYPE, data: transitionData(t), at: now });
      if (escalate) {
        // its number, as prepare() gives it below: escalated_at is shown once that event is recorded
        alarm.escalation = this.journal.next + events.length;
        events.push({ type: ESCALATION_TYPE, data: escalationData(spec, next.record), at: now });
      }
      this.take(alarm, next.record);
      alarm.clocks = monoDeadlines(clocks, alarm.record, spec, now, mono);
      alarm.wake = nextWake({ spec, types: alarm.types, record: alarm.record, pendingUntil: look.pendingUntil, scope: ctx.scope, mono, clocks: alarm.clocks });
      wake = Math.min(wake, alarm.wake);
    }
    // the records in memory go on whether the state file can be written or not: the events are the record
    if (durable) void this.journal.record(this.journal.prepare(events).batch);
    // events a full disk held back, and a state file that could not be written, are tried again at every look
    if (this.journal.held || this.journal.error !== undefined) void this.journal.retry();
    this.schedule(wake);
  }

  /** Set `record` for `alarm` and tell the listeners when what they show changed. */
  private take(alarm: Alarm, record: AlarmRecord): void {
    const before = alarm.record;
    alarm.record = record;
    if (changed(before, record)) for (const l of this.listeners) l(this.answer(alarm));
  }

  /**
   * A request's change of `alarm` at `at` (ms): the state written ahead with its transition, then
   * the event recorded. One whose state cannot be written is undone and refused (503).
   */
  private async change(alarm: Alarm, record: AlarmRecord, transition: Transition, at: number): Promise<void> {
    const before = alarm.record;
    alarm.record = record;
    const { batch, written } = this.journal.prepare([{ type: ALARM_TYPE, data: transitionData(transition), at }]);
    if (!written) {
      alarm.record = before;
      this.journal.refuse(batch);
      throw writeFailure(this.journal.cause, `Alarm ${alarm.spec.id} was left as it was: ${this.journal.error ?? 'the alarm state could not be written'}.`);
    }
    alarm.record = before;
    this.take(alarm, record);
    await this.journal.record(batch);
  }

  /** Set the one timer to the earliest wake of any alarm (`looked`: of those just looked at). */
  private schedule(looked: number): void {
    if (this.stopped) return this.timer.stop();
    this.timer.set(looked, this.alarms.values());
  }

  private mono(): number {
    const m = monotonicNow(this.deps.clock);
    return Number.isNaN(m) ? this.deps.clock.now() : m;
  }
}
