import type { ExpressionNode } from './syntax.js';

// What an expression can never judge, told at start-up (compile.ts refuses it with a
// position): each node's kind of value is known from the tree alone, except a field's (a
// reading may hold anything). A number compared with `<` to a string, `not` of a number, an
// `and` of two numbers, a chained comparison (`a < b < c`: a comparison of a comparison's
// true/false), an expression that is a number rather than true/false: each would be unknown
// (so unsafe) on every reading, for ever (hostile tester I, finding 4).

/** The kind of value a node gives: `any` for a field, whose kind only the reading tells. */
export type StaticKind = 'number' | 'boolean' | 'string' | 'any';

/** The kind of value `node` gives. */
export function kindOf(node: ExpressionNode): StaticKind {
  switch (node.kind) {
    case 'literal': return typeof node.value as 'number' | 'boolean' | 'string';
    case 'reference': return 'any';
    case 'negate': case 'arithmetic': case 'call': return 'number';
    case 'type-call': return node.name === 'age' ? 'number' : 'boolean';
    default: return 'boolean';
  }
}

const NAMES: Record<StaticKind, string> = { number: 'a number', boolean: 'true/false', string: 'a string', any: 'a field' };

/** Why `node`, an operand of `operator`, can never be judged there (undefined: it may be); `wants`: the kind the operator takes. */
export function operandProblem(operator: string, node: ExpressionNode, wants: 'number' | 'boolean'): string | undefined {
  const kind = kindOf(node);
  if (kind === 'any' || kind === wants) return undefined;
  if ((node.kind === 'compare' || node.kind === 'equal') && wants === 'number') {
    return `a chained comparison (a < b < c) is not part of the language: write a < b and b < c`;
  }
  return `${operator} takes ${NAMES[wants]}, not ${NAMES[kind]} (it could never be judged)`;
}

/** Why `left == right` (or `!=`) is refused, undefined when it is not: a comparison of a comparison, or two kinds that can never be equal. */
export function equalProblem(operator: string, left: ExpressionNode, right: ExpressionNode): string | undefined {
  const chained = [left, right].some((n) => n.kind === 'compare' || n.kind === 'equal');
  if (chained) return `a chained comparison (a == b == c, a < b == c) is not part of the language: write each comparison on its own, joined by and`;
  const [a, b] = [kindOf(left), kindOf(right)];
  if (a !== 'any' && b !== 'any' && a !== b) return `${operator} compares ${NAMES[a]} with ${NAMES[b]}, which are never equal`;
  return undefined;
}

/** Why a whole expression (a `when`, a `clear`) is refused: it gives a number or a string, never true or false. */
export function rootProblem(root: ExpressionNode): string | undefined {
  const kind = kindOf(root);
  return kind === 'number' || kind === 'string' ? `the expression gives ${NAMES[kind]}, never true or false` : undefined;
}
