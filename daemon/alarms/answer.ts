import { formatTs } from '../../lib/time.js';
import type { AlarmAnswer } from '../../lib/wire.js';
import type { AlarmSpec } from './config.js';
import { rank, type AlarmRecord } from './machine.js';

// An alarm as the API shows it (GET /alarms, the stream's `alarm` frames): the record's times
// as ts strings, in the key order of docs/alarms.md.

/** The answer of one alarm. */
export function alarmAnswer(spec: AlarmSpec, r: AlarmRecord): AlarmAnswer {
  const ts = (ms: number | null) => (ms === null ? null : formatTs(ms));
  return {
    id: spec.id, severity: r.severity, state: r.state, active: r.active, since: formatTs(r.since), raised_at: ts(r.raised_at),
    value: r.value, message: spec.message, acked_by: r.acked_by, acked_at: ts(r.acked_at), shelved_until: ts(r.shelved_until),
    escalated_at: ts(r.escalated_at), unknown: r.unknown,
  };
}

/** The order of GET /alarms: worst severity first, then by id. */
export function compareAnswers(a: AlarmAnswer, b: AlarmAnswer): number {
  return rank(b.severity) - rank(a.severity) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
