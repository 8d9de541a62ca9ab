import { ExactNumber } from '../../lib/exact-json.js';
import type { JudgedType } from '../freshness/judge.js';
import type { CompiledExpression } from './compile.js';
import type { RuleScope } from './scope.js';
import { magnusDewpoint, UNKNOWN } from './fast.js';
import { showNode, type ExpressionNode, type ReferenceCandidate } from './syntax.js';

// Evaluating a compiled expression over the current view: true, false, or unknown with the
// reasons (a type missing or stale, a field missing or not a number). Logic is three-valued
// (false and unknown is false; true or unknown is true), so a rule that does not need a
// value is not made unknown by it. Reading values come from the reading's `data` (or `meta`),
// parsed once per reading (Reading.envelope keeps it).

/** An expression's verdict: `truth` undefined means unknown, and `reasons` say why. */
export interface Outcome {
  readonly truth: boolean | undefined;
  readonly reasons: readonly string[];
}

/** A value, or why it cannot be told. */
export { magnusDewpoint } from './fast.js';

export type ValueOutcome = { readonly value: unknown } | { readonly reasons: readonly string[] };

class Unknown {
  constructor(readonly reasons: readonly string[]) {}
}

type Value = unknown;

const HOLDS: Outcome = Object.freeze({ truth: true, reasons: Object.freeze([]) });
const FAILS: Outcome = Object.freeze({ truth: false, reasons: Object.freeze([]) });

/** Whether `expression` holds now (unknown when it cannot be told, with the reasons): the fast form, the slow path only for the reasons. */
export function testExpression(expression: CompiledExpression, scope: RuleScope): Outcome {
  const v = scope.fastValue(expression);
  if (v === true) return HOLDS;
  if (v === false) return FAILS;
  return testSlowly(expression, scope);
}

/** testExpression on the slow path alone: the tree walked, every reason said (the reference the fast form is held to). */
export function testSlowly(expression: CompiledExpression, scope: RuleScope): Outcome {
  const v = evaluate(expression.root, scope);
  if (v instanceof Unknown) return { truth: undefined, reasons: [...new Set(v.reasons)] };
  if (typeof v === 'boolean') return { truth: v, reasons: [] };
  return { truth: undefined, reasons: [`${expression.text} is not true or false (${brief(v)})`] };
}

/** The value of the expression's first field reference (what an alarm shows as its value), or why there is none. */
export function firstValue(expression: CompiledExpression, scope: RuleScope): ValueOutcome | undefined {
  const ref = expression.first;
  if (!ref) return undefined;
  // the fast path: a fresh reading holding the field (the slow one says why not)
  for (const c of ref.candidates) {
    const reading = scope.reading(c.type);
    if (reading === undefined) continue;
    if (reading === null) break;
    const v = scope.valueAt(reading, c);
    if (v === UNKNOWN) break;
    // every alarm showing this field of this reading shows one value (its cell keeps it: rules/scope.ts)
    const cell = c.cell;
    if (cell !== undefined && cell.reading === reading && cell.first !== undefined) return cell.first as ValueOutcome;
    const first = { value: typeof v === 'number' ? new ExactNumber(v, () => reading.textOf(c.part, c.path) ?? JSON.stringify(v)) : v };
    if (cell !== undefined && cell.reading === reading) cell.first = first;
    return first;
  }
  return firstValueSlowly(expression, scope);
}

/** firstValue on the slow path alone (the reference its fast path is held to). */
export function firstValueSlowly(expression: CompiledExpression, scope: RuleScope): ValueOutcome | undefined {
  const ref = expression.first;
  if (!ref) return undefined;
  const v = evaluate(ref, scope);
  if (v instanceof Unknown) return { reasons: v.reasons };
  return { value: typeof v === 'number' ? exactNumber(v, ref.candidates, scope) : v };
}

/** `v` read by a reference, as an ExactNumber whose text is the reading's spelling, found when first written out. */
function exactNumber(v: number, candidates: readonly ReferenceCandidate[], scope: RuleScope): number | ExactNumber {
  const { chosen, judged } = choose(candidates, scope);
  const reading = judged?.reading;
  if (!reading) return v;
  return new ExactNumber(v, () => reading.textOf(chosen.part, chosen.path) ?? JSON.stringify(v));
}

function evaluate(node: ExpressionNode, scope: RuleScope): Value | Unknown {
  switch (node.kind) {
    case 'literal': return node.value;
    case 'reference': return reference(node.text, node.candidates, scope);
    case 'negate': return map1(number(node.argument, scope), (a) => -a);
    case 'not': return map1(truthOf(node.argument, scope), (a) => !a);
    case 'arithmetic': return arithmetic(node, scope);
    case 'compare': return map2(number(node.left, scope), number(node.right, scope), (a, b) => compare(node.operator, a, b));
    case 'equal': return map2(plainValue(node.left, scope), plainValue(node.right, scope), (a, b) => (a === b) === (node.operator === '=='));
    case 'logic': return logic(node.operator, truthOf(node.left, scope), truthOf(node.right, scope));
    case 'call': return call(node.name, node.args, scope);
    case 'type-call': return node.name === 'age' ? age(node.type, scope) : stale(node.type, scope);
  }
}

/** The candidate a reference reads: the longest type that has a reading; else the shortest, to say it is missing. */
function choose(candidates: readonly ReferenceCandidate[], scope: RuleScope): { chosen: ReferenceCandidate; judged: JudgedType | undefined } {
  for (const c of candidates) {
    const j = scope.judged(c.type);
    if (j?.reading) return { chosen: c, judged: j };
  }
  return { chosen: candidates[candidates.length - 1]!, judged: undefined };
}

function reference(text: string, candidates: readonly ReferenceCandidate[], scope: RuleScope): Value | Unknown {
  const { chosen, judged } = choose(candidates, scope);
  if (!judged?.reading) return new Unknown([`${chosen.type} is missing (no reading)`]);
  if (judged.freshness.stale) return new Unknown([staleReason(judged)]);
  const envelope = judged.reading.envelope;
  let value: unknown = chosen.part === 'data' ? envelope.data : envelope.meta;
  for (const step of chosen.path) {
    const inside = typeof step === 'number' ? Array.isArray(value) && step < value.length
      : value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, step);
    if (!inside) return new Unknown([`${text} is missing`]);
    value = (value as Record<string | number, unknown>)[step];
  }
  return value;
}

/** `weather is stale (age 312.4 s, limit 180 s)`. */
export function staleReason(judged: JudgedType): string {
  const age = judged.ageMs === undefined ? 'its ts cannot be read' : `age ${(judged.ageMs / 1000).toFixed(1)} s`;
  return `${judged.type} is stale (${age}, limit ${judged.maxAgeS ?? '?'} s)`;
}

function number(node: ExpressionNode, scope: RuleScope): number | Unknown {
  const v = evaluate(node, scope);
  if (v instanceof Unknown || (typeof v === 'number' && Number.isFinite(v))) return v as number | Unknown;
  return new Unknown([`${showNode(node)} is not a number (${brief(v)})`]);
}

function truthOf(node: ExpressionNode, scope: RuleScope): boolean | Unknown {
  const v = evaluate(node, scope);
  if (v instanceof Unknown || typeof v === 'boolean') return v;
  return new Unknown([`${showNode(node)} is not true or false (${brief(v)})`]);
}

function plainValue(node: ExpressionNode, scope: RuleScope): number | string | boolean | Unknown {
  const v = evaluate(node, scope);
  if (v instanceof Unknown || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  return new Unknown([`${showNode(node)} is not a number, a string or true/false (${brief(v)})`]);
}

function arithmetic(node: Extract<ExpressionNode, { kind: 'arithmetic' }>, scope: RuleScope): number | Unknown {
  return finite(node, map2(number(node.left, scope), number(node.right, scope), (a, b) => {
    switch (node.operator) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': return a / b;
    }
  }));
}

function compare(op: '<' | '<=' | '>' | '>=', a: number, b: number): boolean {
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
}

function logic(op: 'and' | 'or', a: boolean | Unknown, b: boolean | Unknown): boolean | Unknown {
  // the value that decides alone: false for `and`, true for `or`
  const decides = op === 'or';
  if (a === decides || b === decides) return decides;
  if (a instanceof Unknown || b instanceof Unknown) return merge(a, b);
  return !decides;
}

function call(name: 'abs' | 'min' | 'max' | 'dewpoint', args: readonly ExpressionNode[], scope: RuleScope): number | Unknown {
  const values = args.map((a) => number(a, scope));
  const unknown = values.filter((v): v is Unknown => v instanceof Unknown);
  if (unknown.length > 0) return new Unknown(unknown.flatMap((u) => u.reasons));
  const n = values as number[];
  if (name === 'abs') return Math.abs(n[0]!);
  if (name === 'min') return Math.min(...n);
  if (name === 'max') return Math.max(...n);
  return dewpoint(n[0]!, n[1]!, args[1]!);
}

/** The dew point (°C) of air at `t` °C and `rh` % relative humidity (Magnus, b 17.62, c 243.12 °C). */
function dewpoint(t: number, rh: number, rhNode: ExpressionNode): number | Unknown {
  if (rh <= 0 || rh > 110) return new Unknown([`${showNode(rhNode)} is not a relative humidity above 0 and at most 110 % (${rh})`]);
  const dew = magnusDewpoint(t, rh);
  return Number.isFinite(dew) ? dew : new Unknown([`the dew point of ${t} °C and ${rh} % cannot be computed`]);
}


function age(type: string, scope: RuleScope): number | Unknown {
  const judged = scope.judged(type);
  if (!judged?.reading) return new Unknown([`${type} is missing (no reading)`]);
  if (judged.ageMs === undefined) return new Unknown([`the age of ${type} cannot be told (its ts cannot be read)`]);
  return judged.ageMs / 1000;
}

function stale(type: string, scope: RuleScope): boolean {
  const judged = scope.judged(type);
  return !judged?.reading || judged.freshness.stale;
}

function finite(node: ExpressionNode, v: number | Unknown): number | Unknown {
  return v instanceof Unknown || Number.isFinite(v) ? v : new Unknown([`${showNode(node)} is not a finite number`]);
}

function map1<A, R>(a: A | Unknown, f: (a: A) => R): R | Unknown {
  return a instanceof Unknown ? a : f(a);
}

function map2<A, B, R>(a: A | Unknown, b: B | Unknown, f: (a: A, b: B) => R): R | Unknown {
  if (a instanceof Unknown || b instanceof Unknown) return merge(a, b);
  return f(a, b);
}

function merge(a: unknown, b: unknown): Unknown {
  return new Unknown([...(a instanceof Unknown ? a.reasons : []), ...(b instanceof Unknown ? b.reasons : [])]);
}

/** What a value is, for a reason: strings and booleans shown, never a recorded number respelled. */
export function brief(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? 'a number' : 'a number too large for a double';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') {
    const text = JSON.stringify(v);
    return text.length > 40 ? `${text.slice(0, 39)}…` : text;
  }
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : v === undefined ? 'nothing' : 'an object';
}
