import type { AlarmSeverity, JsonValue } from '../../lib/wire.js';
import type { AlarmSpec } from './config.js';
import type { ConditionContext } from './expression.js';
import type { AlarmRecord } from './machine.js';
import { monoDeadlines, nextWake, type MonoDeadlines } from './wake.js';

// One configured alarm as the engine runs it (engine.ts), and the look at one at rest that
// nearly every reading makes (quietLook: only its value moves).

/** One alarm: its rule, its record and what the engine keeps for it between looks. */
export interface Alarm {
  spec: AlarmSpec;
  /** The types its levels read. */
  types: readonly string[];
  worst: AlarmSeverity;
  record: AlarmRecord;
  pending: Map<AlarmSeverity, number>;
  /** When (monotonic ms) this alarm must be looked at again, Infinity when nothing is due. */
  wake: number;
  /** Its shelf's end and its escalation's time on the monotonic clock, each with the wall time it was taken from. */
  clocks: MonoDeadlines;
  /** When (monotonic ms) a reading it reads was recorded since its last look, undefined when none was. */
  dirtyAt: number | undefined;
  /** The number of its escalation event while that is not recorded (escalated_at is shown once it is). */
  escalation: number | undefined;
  /** Its place in the engine's dirty list when it was last put there (an earlier place is left behind). */
  listedAt: number;
}

/**
 * The look at an alarm at rest (normal; nothing raised, pending or unknown) whose levels all
 * still do not hold, which is nearly every look: what the full look would do then (only the
 * value moves: no transition, nothing durable, nothing the listeners show), without its
 * steps. False, with nothing done, for any other alarm or when a level holds or cannot be judged.
 */
export function quietLook(alarm: Alarm, ctx: ConditionContext, now: number, mono: number): boolean {
  const { record, spec } = alarm;
  if (record.state !== 'normal' || record.raised.length > 0 || record.active || record.unknown !== null || alarm.pending.size > 0) return false;
  for (const level of spec.levels) if (level.when.holds(ctx) !== false) return false;
  let value: JsonValue = null;
  for (const level of spec.levels) {
    value = level.when.valueOf(ctx);
    if (value !== null) break;
  }
  // only the value moves (nothing else of the record, nothing listeners show): set in place, no record built per reading
  record.value = value;
  alarm.clocks = monoDeadlines(alarm.clocks, record, spec, now, mono);
  alarm.wake = nextWake({ spec, types: alarm.types, record: alarm.record, pendingUntil: undefined, scope: ctx.scope, mono, clocks: alarm.clocks });
  return true;
}

/** The number of an alarm event (its meta `alarm_n`), 0 when it has none. */
export function numberOf(meta: unknown): number {
  const n = (meta as { alarm_n?: unknown } | null | undefined)?.alarm_n;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : 0;
}
