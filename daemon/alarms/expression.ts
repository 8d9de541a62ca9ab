import type { JsonValue } from '../../lib/wire.js';
import { compileExpression, type CompiledExpression } from '../rules/compile.js';
import { firstValue, testExpression } from '../rules/evaluate.js';
import { ScopeRounds, type RuleScope } from '../rules/scope.js';

export { ScopeRounds };

// The conditions of alarm rules as the alarms see them: an expression of the rule language
// (daemon/rules/, docs/safety.md "The rule language") that is true, false or unknown (with the
// reason), the types it reads, and the value of the first field it reads (the alarm's `value`).
// This file is the one place the alarms meet daemon/rules/.

/** What an expression is judged against: the types of the view judged at one instant (one look: daemon/rules/scope.ts). */
export interface ConditionContext {
  scope: RuleScope;
}

/** The context of one look at `now`, its scope shared with the safety verdict at the same instant. */
export function lookContext(rounds: ScopeRounds, now: number): ConditionContext {
  return { scope: rounds.at(now) };
}

/** A condition's outcome: holds, does not, or cannot be judged (`truth` undefined, with the reason). */
export interface Outcome {
  truth: boolean | undefined;
  reason?: string;
  /** The value of the first field the expression reads, null when none (or it cannot be read); a number as its reading spelled it (lib/exact-json.ts ExactNumber: write it with exactJson). */
  value: JsonValue;
}

/** A compiled condition. */
export interface Condition {
  readonly text: string;
  /** The types it reads: a new reading of one of them may change it. */
  readonly types: readonly string[];
  /** `withValue` false: the value is not read (null), only whether it holds (a `clear`). */
  evaluate(ctx: ConditionContext, withValue?: boolean): Outcome;
  /** Whether it holds (undefined: cannot be judged), the reason left unsaid: evaluate's `truth`. */
  holds(ctx: ConditionContext): boolean | undefined;
  /** evaluate's `value` alone. */
  valueOf(ctx: ConditionContext): JsonValue;
}

/** Compile `text` (`where` names the key in errors: `f.toml: alarm 2 (wind): when`); a bad expression is a ConfigError with its position. */
export function compileCondition(text: string, where: string): Condition {
  const compiled = compileExpression(text, where);
  return {
    text, types: compiled.types,
    evaluate: (ctx, withValue = true) => outcomeOf(compiled, ctx.scope, withValue),
    holds: (ctx) => testExpression(compiled, ctx.scope).truth,
    valueOf: (ctx) => valueOf(compiled, ctx.scope),
  };
}

function outcomeOf(compiled: CompiledExpression, scope: RuleScope, withValue: boolean): Outcome {
  const tested = testExpression(compiled, scope);
  const value = withValue ? valueOf(compiled, scope) : null;
  return tested.truth === undefined ? { truth: undefined, reason: tested.reasons.join('; '), value } : { truth: tested.truth, value };
}

function valueOf(compiled: CompiledExpression, scope: RuleScope): JsonValue {
  const first = firstValue(compiled, scope);
  return first && 'value' in first && isJson(first.value) ? first.value : null;
}

function isJson(v: unknown): v is JsonValue {
  const kind = typeof v;
  return v === null || kind === 'number' || kind === 'string' || kind === 'boolean' || kind === 'object';
}
