import type { RuleScope, ScopedExpression } from './scope.js';
import { UNKNOWN } from './unknown.js';
import { showNode, type ExpressionNode, type ReferenceCandidate } from './syntax.js';

// The fast path of evaluate.ts: an expression's tree compiled once into closures that return a
// plain value (a boolean, a number, a string) with nothing allocated, or UNKNOWN when it cannot
// be told. It says no more than that: whoever needs the reasons (an unknown input, a value
// that is not true or false) evaluates the tree on the slow path (evaluate.ts), which is the
// reference; test/rules-fast.test.ts holds the two equal over a table of expressions.

export { UNKNOWN };

/** A compiled expression's fast form: its value over `scope`, or UNKNOWN. */
export type FastExpression = (scope: RuleScope) => unknown;

/** The closures of `node`. */
export function fastOf(node: ExpressionNode): FastExpression {
  switch (node.kind) {
    case 'literal': { const value = node.value; return () => value; }
    case 'reference': return referenceOf(node.candidates);
    case 'negate': { const a = numberOf(node.argument); return (s) => { const v = a(s); return v === UNKNOWN ? v : -(v as number); }; }
    case 'not': { const a = truthOf(node.argument); return (s) => { const v = a(s); return v === UNKNOWN ? v : !v; }; }
    case 'arithmetic': return sharedIfCostly(node, arithmeticOf(node.operator, numberOf(node.left), numberOf(node.right)));
    case 'compare': return compareOf(node.operator, numberOf(node.left), numberOf(node.right), numericLiteral(node.right));
    case 'equal': return equalOf(node.operator === '==', plainOf(node.left), plainOf(node.right));
    case 'logic': return logicOf(node.operator === 'or', truthOf(node.left), truthOf(node.right));
    case 'call': return sharedIfCostly(node, callOf(node.name, node.args.map(numberOf)));
    case 'type-call': return node.name === 'age' ? ageOf(node.type) : staleOf(node.type);
  }
}

/**
 * A part holding a function call (a dew point, say) taken once per scope for every expression
 * holding the same part (by its text): rules of one type often share one (`t - dewpoint(t, rh)`
 * in both `when` and `clear`, in several rules and alarms). Other parts cost less than the look.
 */
function sharedIfCostly(node: ExpressionNode, fast: FastExpression): FastExpression {
  if (!holdsCall(node)) return fast;
  const part: ScopedExpression = { text: showNode(node), fast };
  return (s) => s.fastValue(part);
}

function holdsCall(node: ExpressionNode): boolean {
  switch (node.kind) {
    case 'call': return true;
    case 'arithmetic': return holdsCall(node.left) || holdsCall(node.right);
    default: return false;
  }
}

/** A finite number written in the expression, undefined for any other node. */
function numericLiteral(node: ExpressionNode): number | undefined {
  return node.kind === 'literal' && typeof node.value === 'number' && Number.isFinite(node.value) ? node.value : undefined;
}

/** The fast form of a reference: the longest candidate type with a reading; unknown when none, stale, or the path is missing. */
export function referenceOf(candidates: readonly ReferenceCandidate[]): FastExpression {
  if (candidates.length === 1) {
    const c = candidates[0]!;
    return (s) => {
      const reading = s.reading(c.type);
      return reading ? s.valueAt(reading, c) : UNKNOWN;
    };
  }
  return (s) => {
    for (let i = 0; i < candidates.length; i++) {
      const c = candidates[i]!;
      const reading = s.reading(c.type);
      if (reading === undefined) continue;
      return reading === null ? UNKNOWN : s.valueAt(reading, c);
    }
    return UNKNOWN;
  };
}

// The wrappers below check a child's kind of value; a child that can give no other (an
// arithmetic's finite number, a comparison's boolean) is used as it is, a literal's check is
// made once, and a reference checks its own value: fewer calls per evaluation.

function numberOf(node: ExpressionNode): FastExpression {
  switch (node.kind) {
    case 'literal': { const value = finiteOrUnknown(node.value); return () => value; }
    case 'reference': {
      const f = referenceOf(node.candidates);
      return (s) => finiteOrUnknown(f(s));
    }
    // a finite number or UNKNOWN already (their arguments are numberOf's)
    case 'arithmetic': case 'negate': case 'call': return fastOf(node);
    default: {
      const f = fastOf(node);
      return (s) => finiteOrUnknown(f(s));
    }
  }
}

function finiteOrUnknown(v: unknown): unknown {
  return typeof v === 'number' && Number.isFinite(v) ? v : UNKNOWN;
}

function truthOf(node: ExpressionNode): FastExpression {
  switch (node.kind) {
    case 'literal': { const value = typeof node.value === 'boolean' ? node.value : UNKNOWN; return () => value; }
    // a boolean or UNKNOWN already
    case 'compare': case 'equal': case 'logic': case 'not': return fastOf(node);
    default: {
      const f = fastOf(node);
      return (s) => {
        const v = f(s);
        return typeof v === 'boolean' ? v : UNKNOWN;
      };
    }
  }
}

function plainOf(node: ExpressionNode): FastExpression {
  const f = fastOf(node);
  return (s) => {
    const v = f(s);
    return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? v : UNKNOWN;
  };
}

function arithmeticOf(op: '+' | '-' | '*' | '/', a: FastExpression, b: FastExpression): FastExpression {
  return (s) => {
    const x = a(s);
    if (x === UNKNOWN) return x;
    const y = b(s);
    if (y === UNKNOWN) return y;
    const r = op === '+' ? (x as number) + (y as number) : op === '-' ? (x as number) - (y as number)
      : op === '*' ? (x as number) * (y as number) : (x as number) / (y as number);
    return Number.isFinite(r) ? r : UNKNOWN;
  };
}

function compareOf(op: '<' | '<=' | '>' | '>=', a: FastExpression, b: FastExpression, limit?: number): FastExpression {
  // against a number written in the expression (the usual rule): one call, the operator chosen once
  if (limit !== undefined) {
    switch (op) {
      case '<': return (s) => { const x = a(s); return x === UNKNOWN ? x : (x as number) < limit; };
      case '<=': return (s) => { const x = a(s); return x === UNKNOWN ? x : (x as number) <= limit; };
      case '>': return (s) => { const x = a(s); return x === UNKNOWN ? x : (x as number) > limit; };
      case '>=': return (s) => { const x = a(s); return x === UNKNOWN ? x : (x as number) >= limit; };
    }
  }
  return (s) => {
    const x = a(s);
    if (x === UNKNOWN) return x;
    const y = b(s);
    if (y === UNKNOWN) return y;
    return op === '<' ? (x as number) < (y as number) : op === '<=' ? (x as number) <= (y as number)
      : op === '>' ? (x as number) > (y as number) : (x as number) >= (y as number);
  };
}

function equalOf(same: boolean, a: FastExpression, b: FastExpression): FastExpression {
  return (s) => {
    const x = a(s);
    if (x === UNKNOWN) return x;
    const y = b(s);
    if (y === UNKNOWN) return y;
    return (x === y) === same;
  };
}

/** Three-valued: the value that decides alone (true for `or`, false for `and`) decides, whatever the other side is. */
function logicOf(decides: boolean, a: FastExpression, b: FastExpression): FastExpression {
  return (s) => {
    const x = a(s);
    if (x === decides) return decides;
    const y = b(s);
    if (y === decides) return decides;
    return x === UNKNOWN || y === UNKNOWN ? UNKNOWN : !decides;
  };
}

function callOf(name: 'abs' | 'min' | 'max' | 'dewpoint', args: readonly FastExpression[]): FastExpression {
  if (name === 'dewpoint') {
    const [t, rh] = args as [FastExpression, FastExpression];
    return (s) => {
      const x = t(s);
      const y = rh(s);
      if (x === UNKNOWN || y === UNKNOWN || (y as number) <= 0 || (y as number) > 110) return UNKNOWN;
      const dew = magnusDewpoint(x as number, y as number);
      return Number.isFinite(dew) ? dew : UNKNOWN;
    };
  }
  if (name === 'abs') {
    const [a] = args as [FastExpression];
    return (s) => { const x = a(s); return x === UNKNOWN ? x : Math.abs(x as number); };
  }
  const pick = name === 'min' ? Math.min : Math.max;
  return (s) => {
    let r = name === 'min' ? Infinity : -Infinity;
    let unknown = false;
    for (const a of args) {
      const x = a(s);
      if (x === UNKNOWN) unknown = true;
      else r = pick(r, x as number);
    }
    return unknown ? UNKNOWN : r;
  };
}

/** The Magnus dew point (°C) of `t` °C and `rh` % (the rule language's dewpoint(); daemon/conditions/ computes the same); not finite when it cannot be told. */
export function magnusDewpoint(t: number, rh: number): number {
  const gamma = Math.log(rh / 100) + (17.62 * t) / (243.12 + t);
  return (243.12 * gamma) / (17.62 - gamma);
}

function ageOf(type: string): FastExpression {
  return (s) => {
    const judged = s.judged(type);
    if (!judged?.reading || judged.ageMs === undefined) return UNKNOWN;
    return judged.ageMs / 1000;
  };
}

function staleOf(type: string): FastExpression {
  return (s) => {
    const judged = s.judged(type);
    return !judged?.reading || judged.freshness.stale;
  };
}
