// The expression language's own tree (compile.ts builds it from jsep's; evaluate.ts walks it).

/** Where a field reference may point: the type and the path under its `data` or `meta`. */
export interface ReferenceCandidate {
  type: string;
  part: 'data' | 'meta';
  path: readonly (string | number)[];
  /** The part and path as one string (a reading's values are cached by it: rules/scope.ts). */
  key: string;
  /** Its member's key in a flat data text, after the opening quote (rules/fields.ts flatPattern), undefined when not read that way. */
  flat: string | undefined;
  /**
   * Where its value is kept for the reading it was read from last (rules/scope.ts valueAt),
   * shared with every reference to the same type and field judged through the same ScopeRounds.
   */
  cell?: FieldCell;
}

/** A field's value as read from one reading (undefined: not read yet). */
export interface FieldCell {
  reading: object | undefined;
  value: unknown;
  /** What firstValue makes of the value (rules/evaluate.ts: an ExactNumber for a number), made once for the reading; undefined until asked. */
  first: unknown;
}

/** One node of a compiled expression. */
export type ExpressionNode =
  | { kind: 'literal'; value: number | boolean | string }
  /** `TYPE.data.FIELD...`: candidates longest type first (the longest known type wins). */
  | { kind: 'reference'; text: string; candidates: readonly ReferenceCandidate[] }
  | { kind: 'negate'; argument: ExpressionNode }
  | { kind: 'not'; argument: ExpressionNode }
  | { kind: 'arithmetic'; operator: '+' | '-' | '*' | '/'; left: ExpressionNode; right: ExpressionNode }
  | { kind: 'compare'; operator: '<' | '<=' | '>' | '>='; left: ExpressionNode; right: ExpressionNode }
  | { kind: 'equal'; operator: '==' | '!='; left: ExpressionNode; right: ExpressionNode }
  | { kind: 'logic'; operator: 'and' | 'or'; left: ExpressionNode; right: ExpressionNode }
  | { kind: 'call'; name: 'abs' | 'min' | 'max' | 'dewpoint'; args: readonly ExpressionNode[] }
  | { kind: 'type-call'; name: 'age' | 'stale'; type: string };

/** The node as text, for reasons (`weather.data.wind_kmh`, `dewpoint(...)`). */
export function showNode(node: ExpressionNode): string {
  switch (node.kind) {
    case 'literal': return JSON.stringify(node.value);
    case 'reference': return node.text;
    case 'negate': return `-${showNode(node.argument)}`;
    case 'not': return `(not ${showNode(node.argument)})`;
    case 'call': return `${node.name}(${node.args.map(showNode).join(', ')})`;
    case 'type-call': return `${node.name}(${node.type})`;
    default: return `(${showNode(node.left)} ${node.operator} ${showNode(node.right)})`;
  }
}

/** The first field reference of a tree (an alarm's value is its field's), undefined when it reads none. */
export function firstReference(node: ExpressionNode): Extract<ExpressionNode, { kind: 'reference' }> | undefined {
  switch (node.kind) {
    case 'reference': return node;
    case 'literal': case 'type-call': return undefined;
    case 'negate': case 'not': return firstReference(node.argument);
    case 'call': return node.args.map(firstReference).find((r) => r !== undefined);
    default: return firstReference(node.left) ?? firstReference(node.right);
  }
}
