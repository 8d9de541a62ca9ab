import type { AlarmSeverity, JsonValue } from '../../lib/wire.js';
import type { AlarmLevel } from './config.js';
import type { ConditionContext } from './expression.js';
import { rank } from './machine.js';

// An alarm's levels judged against the view: each level is raised once `when` holds
// (continuously for `for`, the debounce) and cleared once `clear` holds (or `when` no longer
// does, without a `clear`); between the two it keeps its state, which is the hysteresis, and
// when both hold it keeps it too (overlapping thresholds: a raised level stays raised, a
// normal one normal, never a flap on every reading). An
// input that cannot be judged (missing, stale) keeps the state, says why, and restarts the
// debounce (a `for` needs the condition seen to hold the whole time).

/** What one look at an alarm's levels found. */
export interface LevelsLook {
  /** The raised levels' severities after this look. */
  raised: AlarmSeverity[];
  /** The worst raised severity, undefined when none is raised. */
  active: AlarmSeverity | undefined;
  value: JsonValue;
  unknown: string | null;
  /** When (monotonic ms) a debounce under way completes, undefined when none is. */
  pendingUntil: number | undefined;
}

/**
 * Judge `levels` from the raised ones of the last look; `pending`: when each level's `when`
 * began to hold (monotonic ms, kept by the caller); `mono.at`: when what is judged was
 * recorded (a debounce starts then), `mono.now`: the time of this look.
 */
export function lookAtLevels(levels: readonly AlarmLevel[], raised: readonly AlarmSeverity[], pending: Map<AlarmSeverity, number>,
  forMs: number, ctx: ConditionContext, mono: { at: number; now: number }): LevelsLook {
  const next: AlarmSeverity[] = [];
  let value: JsonValue = null;
  let unknown: string | null = null;
  let pendingUntil: number | undefined;
  for (const level of levels) {
    const was = raised.includes(level.severity);
    const when = level.when.evaluate(ctx);
    if (value === null && when.value !== null) value = when.value;
    let is = was;
    if (!was) {
      // `when` and `clear` both true: a normal level stays normal (hysteresis, never a flap)
      if (when.truth === true && !(level.clear && level.clear.evaluate(ctx, false).truth === true)) {
        const since = pending.get(level.severity) ?? mono.at;
        pending.set(level.severity, since);
        if (mono.now - since >= forMs) is = true;
        else pendingUntil = Math.min(pendingUntil ?? Infinity, since + forMs);
      } else pending.delete(level.severity);
      if (when.truth === undefined) unknown ??= when.reason ?? 'cannot be judged';
    } else {
      const clear = level.clear ? level.clear.evaluate(ctx, false) : { truth: when.truth === undefined ? undefined : !when.truth, reason: when.reason };
      if (clear.truth === true && !(level.clear && when.truth === true)) is = false;
      if (clear.truth === undefined) unknown ??= clear.reason ?? 'cannot be judged';
    }
    if (is) {
      next.push(level.severity);
      pending.delete(level.severity);
    }
  }
  const active = next.reduce<AlarmSeverity | undefined>((worst, s) => (worst === undefined || rank(s) > rank(worst) ? s : worst), undefined);
  return { raised: next, active, value, unknown, pendingUntil };
}
