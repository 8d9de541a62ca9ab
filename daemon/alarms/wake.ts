import type { ConditionContext } from './expression.js';
import type { AlarmSpec } from './config.js';
import type { AlarmRecord } from './machine.js';

// When an alarm must be looked at again without a new reading: its debounce completes, its
// shelf time runs out, its escalation falls due, or one of its inputs passes its age limit
// (a stale input changes `stale(TYPE)` and makes a field unknown), so a stale alarm is raised
// within milliseconds of the limit passing rather than at the next periodic look.

/** What the next wake is computed from; `mono` monotonic ms. */
export interface WakeInput {
  spec: AlarmSpec;
  /** The types its levels read (inputTypes). */
  types: readonly string[];
  record: AlarmRecord;
  pendingUntil: number | undefined;
  /** The types as this look judged them (one instant, each type judged once). */
  scope: ConditionContext['scope'];
  mono: number;
  clocks: MonoDeadlines;
}

/** An alarm's shelf end and escalation time on the monotonic clock (Infinity: none), and the wall times they were taken from. */
export interface MonoDeadlines {
  shelfEnd: number;
  shelfFrom: number | null;
  escalateAt: number;
  escalateFrom: number | null;
}

/** No deadline. */
export function emptyDeadlines(): MonoDeadlines {
  return { shelfEnd: Infinity, shelfFrom: null, escalateAt: Infinity, escalateFrom: null };
}

/**
 * The deadlines of `record` on the monotonic clock: taken from the wall times (shelved_until,
 * raised_at + escalate_after) once, when they change (a shelf, a raise, a restart), then kept:
 * a wall-clock step while running moves neither. An escalation is never due later than
 * escalate_after from now (a raise "in the future": the clock was stepped back since it).
 */
export function monoDeadlines(d: MonoDeadlines, record: AlarmRecord, spec: AlarmSpec, now: number, mono: number): MonoDeadlines {
  const until = record.state === 'shelved' ? record.shelved_until : null;
  const raisedAt = spec.escalateAfterMs === undefined ? null : record.raised_at;
  // the common case, every look at an alarm that is not shelved or raised: nothing to take again
  if (until === d.shelfFrom && raisedAt === d.escalateFrom) return d;
  const shelf = until === d.shelfFrom ? { shelfEnd: d.shelfEnd, shelfFrom: d.shelfFrom }
    : { shelfEnd: until === null ? Infinity : mono + Math.max(0, until - now), shelfFrom: until };
  const raised = spec.escalateAfterMs === undefined ? null : record.raised_at;
  const escalate = raised === d.escalateFrom ? { escalateAt: d.escalateAt, escalateFrom: d.escalateFrom }
    : { escalateAt: raised === null ? Infinity : mono + Math.min(spec.escalateAfterMs!, Math.max(0, raised + spec.escalateAfterMs! - now)), escalateFrom: raised };
  return { ...shelf, ...escalate };
}

/** The monotonic time of the alarm's next look, Infinity when nothing is due. */
export function nextWake({ spec, types, record, pendingUntil, scope, mono, clocks }: WakeInput): number {
  let wake = pendingUntil ?? Infinity;
  if (record.state === 'shelved') wake = Math.min(wake, clocks.shelfEnd);
  if (spec.escalateAfterMs !== undefined && record.escalated_at === null && record.raised_at !== null
    && (record.state === 'unack' || record.state === 'rtn_unack')) {
    wake = Math.min(wake, clocks.escalateAt);
  }
  for (const type of types) {
    // told from the window in which the reading is surely fresh, without judging it again
    const at = scope.staleAt(type);
    if (at === undefined) continue;
    if (!Number.isNaN(at)) {
      wake = Math.min(wake, Math.max(at, mono));
      continue;
    }
    const judged = scope.judged(type);
    if (!judged || judged.freshness.stale || judged.maxAgeS === undefined || judged.ageMs === undefined) continue;
    // the first millisecond past the limit
    wake = Math.min(wake, mono + Math.max(0, judged.maxAgeS * 1000 - judged.ageMs) + 1);
  }
  return wake;
}

/** Every type an alarm's levels read (once each): what a new reading of wakes it, and whose limits passing does. */
export function inputTypes(spec: AlarmSpec): readonly string[] {
  return [...new Set(spec.levels.flatMap((l) => [...l.when.types, ...(l.clear?.types ?? [])]))];
}
