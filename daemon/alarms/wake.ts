import type { FreshnessJudge } from '../freshness/judge.js';
import type { AlarmSpec } from './config.js';
import type { AlarmRecord } from './machine.js';

// When an alarm must be looked at again without a new reading: its debounce completes, its
// shelf time runs out, its escalation falls due, or one of its inputs passes its age limit
// (a stale input changes `stale(TYPE)` and makes a field unknown), so a stale alarm is raised
// within milliseconds of the limit passing rather than at the next periodic look.

/** What the next wake is computed from; `now` wall ms, `mono` monotonic ms. */
export interface WakeInput {
  spec: AlarmSpec;
  record: AlarmRecord;
  pendingUntil: number | undefined;
  judge: FreshnessJudge;
  now: number;
  mono: number;
}

/** The monotonic time of the alarm's next look, Infinity when nothing is due. */
export function nextWake({ spec, record, pendingUntil, judge, now, mono }: WakeInput): number {
  let wake = pendingUntil ?? Infinity;
  const inWall = (at: number) => mono + Math.max(0, at - now);
  if (record.state === 'shelved' && record.shelved_until !== null) wake = Math.min(wake, inWall(record.shelved_until));
  if (spec.escalateAfterMs !== undefined && record.escalated_at === null && record.raised_at !== null
    && (record.state === 'unack' || record.state === 'rtn_unack')) {
    wake = Math.min(wake, inWall(record.raised_at + spec.escalateAfterMs));
  }
  for (const level of spec.levels) {
    for (const type of [...level.when.types, ...(level.clear?.types ?? [])]) {
      const judged = judge.judge(type, now);
      if (!judged || judged.freshness.stale || judged.maxAgeS === undefined || judged.ageMs === undefined) continue;
      // the first millisecond past the limit
      wake = Math.min(wake, mono + Math.max(0, judged.maxAgeS * 1000 - judged.ageMs) + 1);
    }
  }
  return wake;
}
