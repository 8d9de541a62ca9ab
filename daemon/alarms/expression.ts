import { ConfigError } from '../../lib/errors.js';
import type { JsonValue } from '../../lib/wire.js';
import type { FreshnessJudge } from '../freshness/judge.js';
import type { JudgedView } from '../freshness/judge.js';

// The conditions of alarm rules as the alarms see them: an expression over the current view
// that is true, false or unknown (with the reason), the types it reads, and the value it read.
// The expression language itself is daemon/rules/ (docs/alarms.md links its page); this file
// is the one place the alarms meet it.

/** What an expression is judged against: the view, the freshness judge and the time. */
export interface ConditionContext {
  view: JudgedView;
  judge: FreshnessJudge;
  now: number;
}

/** A condition's outcome: holds, does not, or cannot be judged (`truth` undefined, with the reason). */
export interface Outcome {
  truth: boolean | undefined;
  reason?: string;
  /** The value of the first field the expression reads (for the alarm's `value`), null when none. */
  value: JsonValue;
}

/** A compiled condition. */
export interface Condition {
  readonly text: string;
  /** The types it reads: a new reading of one of them may change it. */
  readonly types: readonly string[];
  /** Whether it reads ages or staleness (then time alone changes it). */
  readonly timed: boolean;
  evaluate(ctx: ConditionContext): Outcome;
}

const COMPARE = /^\s*(.+?)\s*(<=|>=|==|!=|<|>)\s*(.+?)\s*$/;
const STALE = /^\s*(not\s+|!\s*)?stale\(\s*([^()]+?)\s*\)\s*$/;
const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
const FIELD = /^(.+?)\.data((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/;

type Operand = { number: number } | { type: string; path: string[]; text: string };

/** Compile `text` (the rule `where` names it in errors); a bad expression is a ConfigError. */
export function compileCondition(text: string, where: string): Condition {
  const stale = STALE.exec(text);
  if (stale) {
    const negated = stale[1] !== undefined;
    const type = stale[2]!;
    return {
      text, types: [type], timed: true,
      evaluate: ({ judge, now }) => {
        const judged = judge.judge(type, now);
        const value = judged?.ageMs === undefined ? null : judged.ageMs / 1000;
        const isStale = judged?.freshness.stale ?? false;
        return { truth: negated ? !isStale : isStale, value };
      },
    };
  }
  const m = COMPARE.exec(text);
  if (!m) throw new ConfigError(`${where}`, 'an expression such as "weather.data.wind_kmh > 40" or "stale(weather)"', text);
  const left = operand(m[1]!, where, text);
  const right = operand(m[3]!, where, text);
  const op = m[2]!;
  const types = [left, right].flatMap((o) => ('type' in o ? [o.type] : []));
  return {
    text, types, timed: false,
    evaluate: (ctx) => {
      const a = read(left, ctx);
      const b = read(right, ctx);
      const value = 'type' in left ? a.value : 'type' in right ? b.value : null;
      if (a.reason !== undefined || b.reason !== undefined) return { truth: undefined, reason: a.reason ?? b.reason, value };
      return { truth: compare(op, a.n!, b.n!), value };
    },
  };
}

function operand(text: string, where: string, whole: string): Operand {
  if (NUMBER.test(text)) return { number: Number(text) };
  const f = FIELD.exec(text);
  if (!f) throw new ConfigError(where, 'an expression of numbers and fields TYPE.data.FIELD', whole);
  return { type: f[1]!, path: f[2]!.slice(1).split('.'), text };
}

function read(o: Operand, { view, judge, now }: ConditionContext): { n?: number; value: JsonValue; reason?: string } {
  if ('number' in o) return { n: o.number, value: o.number };
  const reading = view.get(o.type);
  if (!reading) return { value: null, reason: `${o.type} has no reading` };
  const judged = judge.judge(o.type, now);
  if (judged?.freshness.stale) {
    return { value: null, reason: `${o.type} is stale (age ${judged.freshness.age_s} s, limit ${judged.freshness.max_age_s} s)` };
  }
  let v: JsonValue | undefined = reading.envelope.data;
  for (const key of o.path) {
    v = v !== null && typeof v === 'object' && !Array.isArray(v) ? v[key] : undefined;
  }
  if (v === undefined) return { value: null, reason: `${o.text} is missing` };
  if (typeof v !== 'number') return { value: v, reason: `${o.text} is not a number` };
  return { n: v, value: v };
}

function compare(op: string, a: number, b: number): boolean {
  switch (op) {
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
    case '==': return a === b;
    default: return a !== b;
  }
}
