import { ALARM_SEVERITIES, MAX_SHELF_MS, type AlarmSeverity, type AlarmState, type JsonValue } from '../../lib/wire.js';

// The alarm state machine, pure: what an alarm becomes when its active severity changes, when
// it is acknowledged, shelved or unshelved (docs/alarms.md "States"). Each change is returned
// with the transition it is (one `meridian.alarm` event); nothing here reads a clock or a file.

/** An alarm's durable record (kept in `.meridian/alarms.json`); times in ms since the epoch. */
export interface AlarmRecord {
  state: AlarmState;
  /** The severity shown: while raised or latched the worst seen; when normal the worst configured. */
  severity: AlarmSeverity;
  active: boolean;
  since: number;
  raised_at: number | null;
  value: JsonValue;
  acked_by: string | null;
  acked_at: number | null;
  shelved_until: number | null;
  escalated_at: number | null;
  unknown: string | null;
  /** Which levels are raised (by severity): the hysteresis memory, kept across a restart. */
  raised: AlarmSeverity[];
}

/** One transition: the data of its `meridian.alarm` event. */
export interface Transition {
  id: string;
  from: AlarmState;
  to: AlarmState;
  severity: AlarmSeverity;
  by?: string;
  note?: string;
  value?: JsonValue;
  shelved_until?: number;
}

/** The longest shelf (a week): a forgotten shelf must end by itself (one source: lib/wire.ts). */
export { MAX_SHELF_MS };

/** A record loaded at start-up whose shelf ends later than a week from `now` (a clock stepped since), ending a week from now. */
export function clampShelf(r: AlarmRecord, now: number): AlarmRecord | undefined {
  if (r.state !== 'shelved' || r.shelved_until === null || r.shelved_until <= now + MAX_SHELF_MS) return undefined;
  return { ...r, shelved_until: now + MAX_SHELF_MS };
}

/** The rank of a severity (warning 0 .. critical 2). */
export function rank(s: AlarmSeverity): number {
  return ALARM_SEVERITIES.indexOf(s);
}

/** The record of an alarm never seen before. */
export function freshRecord(worst: AlarmSeverity, now: number): AlarmRecord {
  return {
    state: 'normal', severity: worst, active: false, since: now, raised_at: null, value: null, acked_by: null, acked_at: null,
    shelved_until: null, escalated_at: null, unknown: null, raised: [],
  };
}

/**
 * `r` as a look found it: its raised levels, value, unknown and activity set, the rest kept (a
 * look at every alarm that reads a recorded type: written out member by member, which is
 * several times faster than a spread of the record).
 */
export function looked(r: AlarmRecord, raised: AlarmSeverity[], value: JsonValue, unknown: string | null, active = r.active): AlarmRecord {
  return {
    state: r.state, severity: r.severity, active, since: r.since, raised_at: r.raised_at, value, acked_by: r.acked_by, acked_at: r.acked_at,
    shelved_until: r.shelved_until, escalated_at: r.escalated_at, unknown, raised,
  };
}

/**
 * What the alarm becomes when its active severity is `active` (undefined: not active); `was`:
 * the worst level raised at the last look (undefined: none). An acknowledged alarm whose level
 * worse than `was` is raised (a new raise: a dive to a worse level, or the level the latch
 * still shows raised again after it cleared) is unacknowledged again (docs/alarms.md "States").
 */
export function onActivity(id: string, r: AlarmRecord, active: AlarmSeverity | undefined,
  opts: { latch: boolean; worst: AlarmSeverity; now: number; was: AlarmSeverity | undefined }):
  { record: AlarmRecord; transition?: Transition } {
  const { now } = opts;
  const base = looked(r, r.raised, r.value, r.unknown, active !== undefined);
  if (r.state === 'shelved') return { record: base };
  const move = (to: AlarmState, changes: Partial<AlarmRecord>) => {
    // every transition moves since (a raise to a worse level and a lower severity shown included)
    const record = { ...base, ...changes, state: to, since: now };
    return { record, transition: { id, from: r.state, to, severity: record.severity, value: r.value } };
  };
  if (active === undefined) {
    if (r.state === 'unack') return opts.latch ? move('rtn_unack', {}) : move('normal', { severity: opts.worst });
    if (r.state === 'acked') return move('normal', { severity: opts.worst });
    return { record: base };
  }
  const raise = { severity: active, raised_at: now, escalated_at: null, acked_by: null, acked_at: null };
  if (r.state === 'normal') return move('unack', raise);
  // raised again after it cleared: a new raise (raised_at now, escalated again), the latched worst kept when it is worse
  if (r.state === 'rtn_unack') return move('unack', { ...raise, severity: rank(active) > rank(r.severity) ? active : r.severity });
  if (rank(active) > rank(r.severity)) return move('unack', raise);
  if (r.state === 'acked' && (opts.was === undefined || rank(active) > rank(opts.was))) return move('unack', raise);
  // a lower severity than shown: a latched alarm keeps the worst, another shows what holds now
  if (rank(active) < rank(r.severity) && !opts.latch) return move(r.state, { severity: active });
  return { record: base };
}

/** Acknowledge: unack -> acked, rtn_unack -> normal; undefined when there is nothing to acknowledge. */
export function onAck(id: string, r: AlarmRecord, by: string, note: string | undefined, opts: { worst: AlarmSeverity; now: number }):
  { record: AlarmRecord; transition: Transition } | undefined {
  if (r.state !== 'unack' && r.state !== 'rtn_unack') return undefined;
  const to: AlarmState = r.state === 'unack' ? 'acked' : 'normal';
  const record: AlarmRecord = {
    ...r, state: to, since: opts.now, acked_by: by, acked_at: opts.now, ...(to === 'normal' ? { severity: opts.worst } : {}),
  };
  return { record, transition: { id, from: r.state, to, severity: r.severity, by, ...(note === undefined ? {} : { note }) } };
}

/** Shelve until `until`; shelving a shelved alarm again is a transition too (shelved -> shelved: the new time, since now). */
export function onShelve(id: string, r: AlarmRecord, by: string, until: number, now: number): { record: AlarmRecord; transition: Transition } {
  const record: AlarmRecord = { ...r, state: 'shelved', since: now, shelved_until: until };
  return { record, transition: { id, from: r.state, to: 'shelved', severity: r.severity, by, shelved_until: until } };
}

/** Unshelve (by someone, or the shelf time ran out): active again -> unack (a new raise), else normal. */
export function onUnshelve(id: string, r: AlarmRecord, active: AlarmSeverity | undefined, by: string | undefined, opts: { worst: AlarmSeverity; now: number }):
  { record: AlarmRecord; transition: Transition } {
  const changes: Partial<AlarmRecord> = active === undefined
    ? { state: 'normal', severity: opts.worst }
    : { state: 'unack', severity: active, raised_at: opts.now, escalated_at: null, acked_by: null, acked_at: null };
  const record: AlarmRecord = { ...r, ...changes, since: opts.now, shelved_until: null };
  return { record, transition: { id, from: 'shelved', to: record.state, severity: record.severity, ...(by === undefined ? {} : { by }), value: r.value } };
}
