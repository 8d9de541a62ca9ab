import { MeridianError } from '../../lib/errors.js';
import { formatTs } from '../../lib/time.js';
import type { AlarmSeverity } from '../../lib/wire.js';
import type { AlarmRecord } from './machine.js';

// What an acknowledgement is refused for (docs/alarms.md "States"): nothing to acknowledge, or
// an alarm that changed since the client saw it (hostile tester M, finding 5: the console's
// line showed WARNING, the alarm went CRITICAL, `a` acknowledged the critical nobody saw).

/** What the acknowledging client saw of the alarm (each optional: only what is given is checked). */
export interface AckSeen {
  severity?: AlarmSeverity;
  /** The alarm's `since` as the client read it (a ts). */
  since?: string;
}

/** 409 ALARM_NOT_UNACKED for an alarm with nothing to acknowledge, saying what it is. */
export function notUnacked(id: string, r: AlarmRecord): MeridianError {
  const why = r.state === 'acked' ? `it was acknowledged by ${r.acked_by ?? 'someone'} at ${formatTs(r.acked_at ?? r.since)}`
    : r.state === 'shelved' ? `it is shelved until ${formatTs(r.shelved_until ?? r.since)}` : 'it is normal';
  return new MeridianError('ALARM_NOT_UNACKED', `Alarm ${id} has nothing to acknowledge: ${why}.`);
}

/** Why `r` is not what the client saw (the detail of 409 ALARM_CHANGED), undefined when it is. */
export function unseen(id: string, r: AlarmRecord, seen: AckSeen): string | undefined {
  const now = `it is ${r.state} ${r.severity} since ${formatTs(r.since)}`;
  if (seen.severity !== undefined && seen.severity !== r.severity) {
    return `Alarm ${id} was not acknowledged: it is ${r.severity}, not the ${seen.severity} you saw (${now}); look at it and acknowledge it again.`;
  }
  if (seen.since !== undefined && seen.since !== formatTs(r.since)) {
    return `Alarm ${id} was not acknowledged: it changed since ${seen.since}, when you saw it (${now}); look at it and acknowledge it again.`;
  }
  return undefined;
}
