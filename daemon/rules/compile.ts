import jsep from 'jsep';
import { ConfigError } from '../../lib/errors.js';
import { DAEMON_TYPE_PREFIX } from '../../lib/max-age.js';
import { TYPE_FORBIDDEN_CHARACTER } from '../../lib/wire.js';
import { fastOf, type FastExpression } from './fast.js';
import type { ValueCell } from './scope.js';
import { flatPattern } from './fields.js';
import { oneByte } from './one-byte.js';
import { NAME_DASH, prepareSource } from './source-text.js';
import { groupNots } from './not-precedence.js';
import { equalProblem, operandProblem, rootProblem } from './static-kind.js';
import { readStringLiteral } from './string-literal.js';
import { firstReference, type ExpressionNode, type ReferenceCandidate } from './syntax.js';

// An expression's text compiled once, at start-up, into our own tree: jsep parses (it is the
// standard small JS expression parser, and it never evaluates anything), this file keeps only
// what the language has (docs/safety.md) and refuses the rest with a position. Nothing is ever
// run through eval or new Function.

/** A compiled expression: its text, its tree, every type it may read (for re-evaluation by type), and its fast form (rules/fast.ts). */
export interface CompiledExpression {
  readonly text: string;
  readonly root: ExpressionNode;
  readonly types: readonly string[];
  readonly fast: FastExpression;
  /** Its first field reference (rules/evaluate.ts firstValue), undefined when it reads none. */
  readonly first: Extract<ExpressionNode, { kind: 'reference' }> | undefined;
  /**
   * Where its value is kept for the scope that took it last (rules/scope.ts fastValue), shared
   * with every expression of the same text judged through the same ScopeRounds; unset until then.
   */
  cell?: ValueCell;
}

/** Why an expression cannot be compiled: what, and where (0-based character index). */
export class ExpressionError extends Error {
  readonly index: number;
  readonly description: string;

  /** `length`: the expression's, so that a problem past its last character is said to be at the end. */
  constructor(description: string, index: number, length = Infinity) {
    super(`${description} at ${index >= length ? 'the end' : `position ${index + 1}`}`);
    this.name = 'ExpressionError';
    this.index = index;
    this.description = description;
  }
}

/** A config key whose expression cannot be compiled: the text kept, so that the config file's reader can name its line. */
export class ExpressionConfigError extends ConfigError {
  readonly expected: string;
  readonly text: string;

  constructor(option: string, expected: string, text: string) {
    super(option, expected, text);
    this.expected = expected;
    this.text = text;
  }
}

/** The deepest tree taken (operators and calls inside one another): evaluation recurses. */
export const MAX_DEPTH = 200;
const ARITHMETIC = new Set(['+', '-', '*', '/']);
const COMPARE = new Set(['<', '<=', '>', '>=']);
// min() and max() take any number of arguments: the expression's length (MAX_EXPRESSION_CHARS) is their limit
const FUNCTION_ARITY: Record<string, [min: number, max: number]> = { abs: [1, 1], min: [1, Infinity], max: [1, Infinity], dewpoint: [2, 2] };

/**
 * Compile `text`, or throw ConfigError naming `where` (`the config file: safety rule 1 (wind): when`)
 * and the position; an expression that may read a `meridian.*` type is refused too (see daemonTypeProblem).
 */
export function compileExpression(text: unknown, where: string): CompiledExpression {
  if (typeof text !== 'string' || text.trim() === '') throw new ConfigError(where, 'an expression in a string', text ?? '(missing)');
  let compiled: CompiledExpression;
  try {
    compiled = parseExpression(text, true);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    throw new ExpressionConfigError(where, `an expression of the rule language (${error.message}; see docs/safety.md)`, text);
  }
  const problem = daemonTypeProblem(compiled.types);
  if (problem !== undefined) throw new ExpressionConfigError(where, problem, text);
  return compiled;
}

/**
 * Why rules may not read `types`, undefined when they may: a `meridian.*` type is recorded by
 * the daemon itself, from the rules' own verdicts (meridian.safety, meridian.alarm,
 * meridian.escalation, meridian.stale/fresh), so a rule reading one would feed back into
 * itself (a verdict flipping for ever, an alarm raised and cleared without end).
 */
export function daemonTypeProblem(types: readonly string[]): string | undefined {
  const own = types.find((t) => t.startsWith(DAEMON_TYPE_PREFIX));
  if (own === undefined) return undefined;
  return `an expression reading no ${DAEMON_TYPE_PREFIX}* type (it reads ${own}, which the daemon records from the rules' own results: a rule reading it would feed back into itself)`;
}

/**
 * Compile `text`, or throw ExpressionError; `judgeable`: also refuse what could never be
 * judged (static-kind.ts: an ordering of a string, a chained comparison, a number as the whole;
 * a rule's `when` and `clear`), otherwise such a part is compiled and is unknown when judged.
 */
export function parseExpression(text: string, judgeable = false): CompiledExpression {
  const prepared = prepareSource(text);
  if ('problem' in prepared) throw new ExpressionError(prepared.problem.description, prepared.problem.index, text.length);
  // `not` binds looser than the comparisons (as in Python): its operand put in parentheses, each position mapped back
  const grouped = groupNots(prepared.source);
  if ('problem' in grouped) throw new ExpressionError(grouped.problem.description, grouped.problem.index, text.length);
  const back = (index: number) => index - grouped.inserted.filter((at) => at <= index).length;
  // a mistake is told on the text as written (never on a parenthesis put in), then the tree taken with them
  const written = parseTree(prepared.source, text.length);
  const tree = grouped.inserted.length === 0 ? written : parseTree(grouped.source, text.length, back);
  const types = new Set<string>();
  const root = new Compiler(grouped.source, types, back, judgeable).node(tree);
  const problem = judgeable ? rootProblem(root) : undefined;
  if (problem !== undefined) throw new ExpressionError(problem, 0, text.length);
  return { text, root, types: [...types], fast: fastOf(root), first: firstReference(root) };
}

/** jsep's tree of `source`, or an ExpressionError at the place (`back`: a place of `source` in the text as written). */
function parseTree(source: string, length: number, back = (index: number) => index): jsep.Expression {
  try {
    return jsep(source);
  } catch (error) {
    // jsep recurses too: `!!!!...` thousands deep overflows its stack before our depth check
    if (error instanceof RangeError) throw new ExpressionError(`the expression is nested more than ${MAX_DEPTH} levels deep`, 0, length);
    const { description, index } = error as { description?: string; index?: number };
    // jsep names the unexpected character; at the end there is none ("Unexpected "): say what is missing
    const said = description === undefined ? (error as Error).message : /^Unexpected\s*$/.test(description) ? 'a name expected after the dot' : description;
    throw new ExpressionError(lowerFirst(said), back(index ?? 0), length);
  }
}

class Compiler {
  private depth = 0;

  constructor(private readonly source: string, private readonly types: Set<string>, private readonly back: (index: number) => number,
    private readonly judgeable: boolean) {}

  node(n: jsep.Expression): ExpressionNode {
    if (++this.depth > MAX_DEPTH) throw new ExpressionError(`the expression is nested more than ${MAX_DEPTH} levels deep`, 0);
    try {
      return this.kind(n);
    } finally {
      this.depth--;
    }
  }

  private kind(n: jsep.Expression): ExpressionNode {
    switch (n.type) {
      case 'Literal': return this.literal(n as jsep.Literal);
      case 'MemberExpression': return this.reference(n);
      case 'UnaryExpression': return this.unary(n as jsep.UnaryExpression);
      case 'BinaryExpression': return this.binary(n as jsep.BinaryExpression);
      case 'CallExpression': return this.call(n as jsep.CallExpression);
      case 'Identifier': {
        const name = plain((n as jsep.Identifier).name);
        throw this.fail(`unknown name ${name} (a field is written TYPE.data.FIELD)`, (n as jsep.Identifier).name);
      }
      default: throw this.fail(`${describeNode(n.type)} is not part of the language`, undefined);
    }
  }

  private literal(n: jsep.Literal): ExpressionNode {
    const value = n.value;
    if (typeof value === 'number' && !Number.isFinite(value)) throw this.fail(`${n.raw} is too large for a number of the language`, n.raw);
    if (typeof value === 'string') return { kind: 'literal', value: oneByte(this.stringOf(n)) };
    if (typeof value === 'number' || typeof value === 'boolean') return { kind: 'literal', value };
    throw this.fail(`${n.raw} is not a value of the language (numbers, true, false and "strings" are)`, n.raw);
  }

  private unary(n: jsep.UnaryExpression): ExpressionNode {
    if (n.operator === '-') return { kind: 'negate', argument: this.operand('-', this.node(n.argument), 'number') };
    if (n.operator === '!') return { kind: 'not', argument: this.operand('not', this.node(n.argument), 'boolean') };
    throw this.fail(`the operator ${n.operator} is not part of the language`, n.operator);
  }

  private binary(n: jsep.BinaryExpression): ExpressionNode {
    const op = n.operator;
    const left = this.node(n.left);
    const right = this.node(n.right);
    const word = op === '&&' ? 'and' : op === '||' ? 'or' : op;
    const wants = op === '&&' || op === '||' ? 'boolean' : 'number';
    if (op === '==' || op === '!=') {
      const problem = this.judgeable ? equalProblem(op, left, right) : undefined;
      if (problem !== undefined) throw this.fail(problem, op);
      return { kind: 'equal', operator: op, left, right };
    }
    if (ARITHMETIC.has(op) || COMPARE.has(op) || op === '&&' || op === '||') {
      this.operand(word, left, wants, op);
      this.operand(word, right, wants, op);
    }
    if (ARITHMETIC.has(op)) return { kind: 'arithmetic', operator: op as '+', left, right };
    if (COMPARE.has(op)) return { kind: 'compare', operator: op as '<', left, right };
    if (op === '&&' || op === '||') return { kind: 'logic', operator: op === '&&' ? 'and' : 'or', left, right };
    throw this.fail(`the operator ${op} is not part of the language`, op);
  }

  private call(n: jsep.CallExpression): ExpressionNode {
    const callee = n.callee.type === 'Identifier' ? (n.callee as jsep.Identifier).name : undefined;
    if (callee === 'age' || callee === 'stale') {
      if (n.arguments.length !== 1) throw this.fail(`${callee}() takes one type name`, callee);
      const type = this.typeName(n.arguments[0]!);
      if (type === undefined) throw this.fail(`${callee}() takes a type name (age(weather), age("dome status"))`, callee);
      this.types.add(type);
      return { kind: 'type-call', name: callee, type };
    }
    const arity = callee === undefined ? undefined : FUNCTION_ARITY[callee];
    if (callee === undefined || arity === undefined) {
      throw this.fail(`unknown function ${callee ?? '(an expression)'} (the functions are abs, min, max, age, stale, dewpoint)`, callee);
    }
    const [min, max] = arity;
    if (n.arguments.length < min || n.arguments.length > max) {
      throw this.fail(`${callee}() takes ${min === max ? min : `${min} or more`} argument${max === 1 ? '' : 's'}`, callee);
    }
    return { kind: 'call', name: callee as 'abs', args: n.arguments.map((a) => this.operand(`${callee}()`, this.node(a), 'number', callee)) };
  }

  /** A type named as a function's argument: a name (dots and dashes allowed) or a string. */
  private typeName(n: jsep.Expression): string | undefined {
    if (n.type === 'Literal') return typeof n.value === 'string' && this.stringOf(n as jsep.Literal) !== '' ? oneByte(this.stringOf(n as jsep.Literal)) : undefined;
    // plain names joined by dots (a quoted name alone is the literal above)
    const links = chain(n, (l) => this.stringOf(l));
    return links?.every((l) => l.plain && typeof l.name === 'string') ? links.map((l) => l.name).join('.') : undefined;
  }

  private reference(n: jsep.Expression): ExpressionNode {
    const links = chain(n, (l) => this.stringOf(l));
    const names = links?.map((l) => l.name);
    const candidates: ReferenceCandidate[] = [];
    // a type is one quoted name, or plain names joined by dots (the longest with a reading is taken): a quoted or
    // bracketed name after it is a field, never more of the type; the part is written `.data` or `.meta`
    for (let i = 1; links && names && i < links.length; i++) {
      const part = names[i];
      if ((part !== 'data' && part !== 'meta') || !links[i]!.plain) continue;
      const head = links.slice(0, i);
      if (!(head.length === 1 || head.every((l) => l.plain))) continue;
      if (head.every((l) => typeof l.name === 'string')) {
        const path = names.slice(i + 1);
        candidates.push({ type: head.map((l) => l.name).join('.'), part, path, key: valueKey(part, path), flat: flatPattern(part, path) });
      }
    }
    if (candidates.length === 0) {
      throw this.fail('a field is written TYPE.data.FIELD or TYPE.meta.FIELD', typeof names?.[0] === 'string' ? names[0] : undefined);
    }
    // a type no reading can have: the rule could never be judged
    const bad = candidates.find((c) => c.type === '' || TYPE_FORBIDDEN_CHARACTER.test(c.type));
    if (bad) throw this.fail(bad.type === '' ? 'an empty type name ("".data.x) names no type' : 'a type name with a control character names no type', bad.type === '' ? '""' : undefined);
    candidates.sort((a, b) => b.type.length - a.type.length);
    for (const c of candidates) this.types.add(c.type);
    return { kind: 'reference', text: referenceText(candidates[candidates.length - 1]!), candidates };
  }

  /** `node`, refused (at `word`) when it can never give what `operator` takes. */
  private operand(operator: string, node: ExpressionNode, wants: 'number' | 'boolean', word = operator): ExpressionNode {
    const problem = this.judgeable ? operandProblem(operator, node, wants) : undefined;
    if (problem !== undefined) throw this.fail(problem, word);
    return node;
  }

  /** A string literal's value, its escapes JSON's (string-literal.ts); refused with the position of an escape that is not one. */
  private stringOf(n: jsep.Literal): string {
    const read = readStringLiteral(n.raw);
    if ('value' in read) return read.value;
    throw new ExpressionError(read.problem, this.back(Math.max(this.source.indexOf(n.raw), 0) + read.offset));
  }

  /** An ExpressionError at the first place `word` is written (0 when unknown). */
  private fail(description: string, word: string | undefined): ExpressionError {
    const at = word === undefined ? -1 : this.source.indexOf(word);
    return new ExpressionError(description, this.back(Math.max(at, 0)));
  }
}

/** One name of a member chain, and whether it was written plain (`.name`: not quoted, not in brackets). */
interface Link {
  name: string | number;
  plain: boolean;
}

/** A member chain's names, root first (`weather.data.wind[0]` -> weather, data, wind, 0); undefined for anything else. */
function chain(n: jsep.Expression, text: (l: jsep.Literal) => string): Link[] | undefined {
  if (n.type === 'Identifier') return [{ name: plain((n as jsep.Identifier).name), plain: true }];
  if (n.type === 'Literal') return typeof n.value === 'string' ? [{ name: oneByte(text(n as jsep.Literal)), plain: false }] : undefined;
  if (n.type !== 'MemberExpression' || n.optional) return undefined;
  const m = n as jsep.MemberExpression;
  const head = chain(m.object, text);
  if (!head) return undefined;
  if (!m.computed && m.property.type === 'Identifier') return [...head, { name: plain((m.property as jsep.Identifier).name), plain: true }];
  const value = m.computed && m.property.type === 'Literal' ? (m.property as jsep.Literal).value : undefined;
  if (typeof value === 'string') return [...head, { name: oneByte(text(m.property as jsep.Literal)), plain: false }];
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return [...head, { name: value, plain: false }];
  return undefined;
}

/** A part and path as one string: `data` then each step, a name as `.name`, an index as `#3`, JSON-quoted so no two paths meet. */
function valueKey(part: 'data' | 'meta', path: readonly (string | number)[]): string {
  return `${part}${path.map((p) => (typeof p === 'number' ? `#${p}` : `.${JSON.stringify(p)}`)).join('')}`;
}

function referenceText(c: ReferenceCandidate): string {
  const type = /^[A-Za-z_][\w.-]*$/.test(c.type) ? c.type : JSON.stringify(c.type);
  const path = c.path.map((p) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_]\w*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`));
  return `${type}.${c.part}${path.join('')}`;
}

/** A name as written (its dashes back), one byte a character when it can be (one-byte.ts). */
function plain(name: string): string {
  return oneByte(name.split(NAME_DASH).join('-'));
}

function describeNode(type: string): string {
  const names: Record<string, string> = {
    Compound: 'more than one expression', SequenceExpression: 'a list of expressions', ArrayExpression: 'an array',
    ConditionalExpression: 'a ? b : c', ThisExpression: 'this',
  };
  return names[type] ?? type;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
