import { maskStrings, type SourceProblem } from './source-text.js';

// `not` (and `!`, its other spelling) binds looser than the comparisons and the arithmetic, as
// in Python, which the rule writers read: `not a == 2` is `not (a == 2)`, `not a + 1 > 2` is
// `not (a + 1 > 2)`, and it binds tighter than `and` and `or` (`not a and b` is `(not a) and b`).
// jsep gives its unary operators the tightest binding, so each `!` of the prepared text gets
// parentheses around the operand Python would give it: up to the first `and`/`or`, `,` or
// closing bracket of its own level. A `not` right after a comparison or arithmetic operator is
// refused, as Python refuses it (`a == not b`: write `a == (not b)`).

/** Where a `not` is refused, or the text with each `!`'s operand in parentheses and where they were put (to map a position back). */
export function groupNots(source: string): { source: string; inserted: number[] } | { problem: SourceProblem } {
  const masked = maskStrings(source);
  if (typeof masked !== 'string') return { problem: masked };
  const inserts: { at: number; text: string }[] = [];
  for (let i = 0; i < masked.length; i++) {
    if (masked[i] !== '!' || masked[i + 1] === '=') continue;
    const before = masked.slice(0, i).trimEnd().at(-1);
    if (before !== undefined && '<>=+-*/'.includes(before)) {
      return { problem: { index: i, description: 'not right after an operator is not part of the language (write it in parentheses: a == (not b))' } };
    }
    inserts.push({ at: i + 1, text: '(' }, { at: operandEnd(masked, i + 1), text: ')' });
  }
  if (inserts.length === 0) return { source, inserted: [] };
  inserts.sort((a, b) => a.at - b.at);
  let out = '';
  let from = 0;
  for (const { at, text } of inserts) {
    out += source.slice(from, at) + text;
    from = at;
  }
  return { source: out + source.slice(from), inserted: inserts.map((x) => x.at) };
}

/** Where the operand of a `not` starting at `from` ends: the first `&&`, `||`, `,` or unmatched closing bracket at its level, else the end. */
function operandEnd(masked: string, from: number): number {
  let depth = 0;
  for (let j = from; j < masked.length; j++) {
    const ch = masked[j];
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') {
      if (depth === 0) return j;
      depth--;
    } else if (depth === 0 && (ch === ',' || ((ch === '&' || ch === '|') && masked[j + 1] === ch))) return j;
  }
  return masked.length;
}
