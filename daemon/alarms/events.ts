import { formatTs } from '../../lib/time.js';
import type { AlarmSeverity } from '../../lib/wire.js';
import type { AlarmSpec } from './config.js';
import { rank, type AlarmRecord, type Transition } from './machine.js';

// What the engine decides from two records, and the data of the events it records: a
// `meridian.alarm` per transition, a `meridian.escalation` per escalation (docs/alarms.md).

/** The event types the alarms record (lib/wire.ts DAEMON_ONLY_TYPES: callers cannot post them). */
export const ALARM_TYPE = 'meridian.alarm';
export const ESCALATION_TYPE = 'meridian.escalation';

/** The worst raised level of a record, undefined when none is raised. */
export function activeOf(r: AlarmRecord): AlarmSeverity | undefined {
  return r.raised.reduce<AlarmSeverity | undefined>((w, s) => (w === undefined || rank(s) > rank(w) ? s : w), undefined);
}

/** Whether two lists of raised levels hold the same severities. */
export function sameRaised(a: readonly AlarmSeverity[], b: readonly AlarmSeverity[]): boolean {
  return a.length === b.length && a.every((s) => b.includes(s));
}

/** Whether the alarm waits to escalate: unacknowledged, raised, not yet escalated (when: wake.ts monoDeadlines). */
export function due(spec: AlarmSpec, r: AlarmRecord): boolean {
  return spec.escalateAfterMs !== undefined && (r.state === 'unack' || r.state === 'rtn_unack') && r.escalated_at === null && r.raised_at !== null;
}

/** Whether what the stream's `alarm` events show changed (not the value alone). */
export function changed(a: AlarmRecord, b: AlarmRecord): boolean {
  return a.state !== b.state || a.severity !== b.severity || a.active !== b.active || a.unknown !== b.unknown
    || a.escalated_at !== b.escalated_at || a.shelved_until !== b.shelved_until || a.acked_at !== b.acked_at;
}

/** The data of a transition's `meridian.alarm` event. */
export function transitionData(t: Transition): Record<string, unknown> {
  const { shelved_until: until, ...rest } = t;
  return { ...rest, ...(until === undefined ? {} : { shelved_until: formatTs(until) }) };
}

/** The data of a `meridian.escalation` event (the webhook bodies are built from it: daemon/forward/notify.ts). */
export function escalationData(spec: AlarmSpec, r: AlarmRecord): Record<string, unknown> {
  return {
    id: spec.id, severity: r.severity, state: r.state, message: spec.message, raised_at: r.raised_at === null ? null : formatTs(r.raised_at),
    value: r.value, escalate_after_s: (spec.escalateAfterMs ?? 0) / 1000,
  };
}
