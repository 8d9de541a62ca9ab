import { ConfigError } from '../../lib/errors.js';
import { compileExpression, type CompiledExpression } from './compile.js';
import { parseDuration } from './duration.js';
import { testExpression } from './evaluate.js';
import type { RuleScope } from './scope.js';

// A condition with hysteresis and debounce: raised once `when` holds (continuously for `for`
// when given), cleared once `clear` holds (default: `not when`); between the two it keeps
// its state, also when `when` and `clear` both hold (each state is left only by its own
// expression holding alone: overlapping thresholds never flap). An unknown input keeps the state too, and says so (what the caller does with an
// unknown is its own: the safety verdict counts it unsafe). Time is the monotonic clock's.

/** A condition as configured: `when`, optional `clear`, and `for` (ms, 0: at once). */
export interface ConditionSpec {
  readonly when: CompiledExpression;
  /** undefined: cleared as soon as `when` no longer holds. */
  readonly clear: CompiledExpression | undefined;
  readonly forMs: number;
}

/** Where a condition stands after a step. */
export interface ConditionStep {
  readonly raised: boolean;
  /** Whether this step raised or cleared it. */
  readonly changed: boolean;
  /** Why it cannot be told now (the state kept), undefined when it can. */
  readonly unknown: readonly string[] | undefined;
  /** While `when` holds but `for` has not passed: the monotonic ms at which it will have (step again then). */
  readonly dueAt: number | undefined;
}

const STEADY_RAISED: ConditionStep = Object.freeze({ raised: true, changed: false, unknown: undefined, dueAt: undefined });
const STEADY_CLEAR: ConditionStep = Object.freeze({ raised: false, changed: false, unknown: undefined, dueAt: undefined });

/** The keys a condition takes in a config table. */
export const CONDITION_KEYS = ['when', 'clear', 'for'] as const;

/** A condition from a config table's `when`, `clear` and `for`; `where` names the table (`the config file: safety rule 2 (dew)`). */
export function conditionOf(table: Readonly<Record<string, unknown>>, where: string): ConditionSpec {
  if (table.when === undefined) throw new ConfigError(`${where}: when`, 'an expression in a string', '(missing)');
  return {
    when: compileExpression(table.when, `${where}: when`),
    clear: table.clear === undefined ? undefined : compileExpression(table.clear, `${where}: clear`),
    forMs: table.for === undefined ? 0 : parseDuration(table.for, `${where}: for`),
  };
}

/** Every type a condition reads (to index conditions by type). */
export function conditionTypes(spec: ConditionSpec): string[] {
  return [...new Set([...spec.when.types, ...(spec.clear?.types ?? [])])];
}

/** One condition's state; step() it whenever an input may have changed, and at its dueAt. */
export class Condition {
  readonly spec: ConditionSpec;
  private up: boolean;
  private holdingSince: number | undefined;

  /** `raised`: the state to start from (a state kept across a restart). */
  constructor(spec: ConditionSpec, raised = false) {
    this.spec = spec;
    this.up = raised;
  }

  get raised(): boolean {
    return this.up;
  }

  /** Judge the condition at monotonic time `mono` over `scope`. */
  step(scope: RuleScope, mono: number): ConditionStep {
    if (this.up) {
      const clear = this.spec.clear ? testExpression(this.spec.clear, scope) : negate(testExpression(this.spec.when, scope));
      if (clear.truth === undefined) return this.result(false, clear.reasons);
      if (!clear.truth) return this.result(false, undefined);
      // `when` and `clear` both true (overlapping thresholds): the state is kept, never a flap
      if (this.spec.clear && testExpression(this.spec.when, scope).truth === true) return this.result(false, undefined);
      this.up = false;
      this.holdingSince = undefined;
      return this.result(true, undefined);
    }
    const when = testExpression(this.spec.when, scope);
    if (when.truth !== true) {
      // an excursion is continuous or it is not one: unknown or false starts `for` over
      this.holdingSince = undefined;
      return this.result(false, when.truth === undefined ? when.reasons : undefined);
    }
    // `when` and `clear` both true: a cleared condition stays cleared (hysteresis holds either state)
    if (this.spec.clear && testExpression(this.spec.clear, scope).truth === true) {
      this.holdingSince = undefined;
      return this.result(false, undefined);
    }
    this.holdingSince ??= mono;
    if (mono - this.holdingSince < this.spec.forMs) return this.result(false, undefined, this.holdingSince + this.spec.forMs);
    this.up = true;
    this.holdingSince = undefined;
    return this.result(true, undefined);
  }

  private result(changed: boolean, unknown: readonly string[] | undefined, dueAt?: number): ConditionStep {
    // the step of nearly every reading: nothing changed, nothing unknown, nothing due (one shared answer each way)
    if (!changed && unknown === undefined && dueAt === undefined) return this.up ? STEADY_RAISED : STEADY_CLEAR;
    return { raised: this.up, changed, unknown, dueAt };
  }
}

function negate(o: { truth: boolean | undefined; reasons: readonly string[] }) {
  return { truth: o.truth === undefined ? undefined : !o.truth, reasons: o.reasons };
}
