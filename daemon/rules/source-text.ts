// An expression's text made ready for jsep, character for character (so that jsep's positions
// are the operator's): the words `and`, `or`, `not` become `&&`, `||`, `!` padded with spaces,
// and a dash inside a type name (`dome-status.data.open`, `age(dome-status)`) becomes U+0081,
// a character jsep reads as part of a name (any past U+007F that is not an operator) and no
// expression holds outside a string (only ASCII is taken there); compile.ts turns it back into a dash. One byte a character in V8,
// as the text is: every name cut from it is one-byte too (one-byte.ts says why that matters).

/** The stand-in for a dash inside a type name. */
export const NAME_DASH = '\u0081';

// a word starting a name (not after a dot or a name character: after a dash it starts one, the dash being a minus), up to the first `.data`/`.meta`
const TYPE_BEFORE_PART = /(?<![\w.\u0081])([A-Za-z_]\w*(?:[.-]\w+)*?)(?=\.(?:data|meta)\b)/g;
const TYPE_ARGUMENT = /(\b(?:age|stale)\s*\(\s*)([A-Za-z_]\w*(?:[.-]\w+)*)(?=\s*\))/g;
// the word operators, found once the dashes of type names are stood in for (`not-ready.data.v` is the type not-ready)
const WORD_OPERATOR = /(?<![\w.$\u0081])(and|or|not)(?![\w.$\u0081])/g;
// outside strings an expression is ASCII (names are letters, digits, `_`, `-`, `.`; any other name is written in quotes):
// a look-alike (U+2010, U+2212, a no-break or zero-width space) would otherwise be read as part of a name
const NOT_ASCII = /[^\t\n\r\x20-\x7e]/;
const WORD_FOR: Record<string, string> = { and: '&& ', or: '||', not: '!  ' };

/** The longest expression taken (characters), and the deepest nesting of parentheses and brackets. */
export const MAX_EXPRESSION_CHARS = 4096;
export const MAX_NESTING = 64;

/** Where the text cannot be read at all (before jsep): a position and what is wrong there. */
export interface SourceProblem {
  index: number;
  description: string;
}

/** The text jsep parses, or the first problem found. */
export function prepareSource(text: string): { source: string } | { problem: SourceProblem } {
  // the parser and the evaluator recurse: an expression is kept to a size a person writes
  if (text.length > MAX_EXPRESSION_CHARS) return { problem: { index: MAX_EXPRESSION_CHARS, description: `an expression is at most ${MAX_EXPRESSION_CHARS} characters` } };
  // strings are left alone: their characters are masked while the words are found
  const masked = maskStrings(text);
  if (typeof masked !== 'string') return { problem: masked };
  const odd = NOT_ASCII.exec(masked);
  if (odd) {
    const code = masked.codePointAt(odd.index)!.toString(16).toUpperCase().padStart(4, '0');
    return { problem: { index: odd.index, description: `the character U+${code} is not part of the language outside a string (a name with it is written in quotes: "dome status".data.x)` } };
  }
  const deep = tooDeep(masked);
  if (deep !== undefined) return { problem: { index: deep, description: `parentheses are nested more than ${MAX_NESTING} deep` } };
  return { source: rewrite(text, masked) };
}

function rewrite(text: string, masked: string): string {
  const out = text.split('');
  const dashed = masked.split('');
  const dashes = (start: number, word: string) => {
    for (let i = 0; i < word.length; i++) {
      if (word[i] !== '-') continue;
      out[start + i] = NAME_DASH;
      dashed[start + i] = NAME_DASH;
    }
  };
  for (const m of masked.matchAll(TYPE_BEFORE_PART)) dashes(m.index, m[1]!);
  for (const m of masked.matchAll(TYPE_ARGUMENT)) dashes(m.index + m[1]!.length, m[2]!);
  for (const m of dashed.join('').matchAll(WORD_OPERATOR)) {
    const word = WORD_FOR[m[1]!]!;
    for (let i = 0; i < word.length; i++) out[m.index + i] = word[i]!;
  }
  return out.join('');
}

/** Where nesting first goes past MAX_NESTING, undefined when it never does. */
function tooDeep(masked: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < masked.length; i++) {
    const ch = masked[i];
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    if (depth > MAX_NESTING) return i;
  }
  return undefined;
}

/** The text with every character inside a string literal replaced by `_` (quotes kept). */
export function maskStrings(text: string): string | SourceProblem {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch !== '"' && ch !== "'") {
      out += ch;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < text.length && text[j] !== ch) j += text[j] === '\\' ? 2 : 1;
    if (j >= text.length) return { index: i, description: 'a string is not closed' };
    out += ch + '_'.repeat(j - i - 1) + ch;
    i = j + 1;
  }
  return out;
}
