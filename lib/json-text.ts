// JSON as text: the members of an object with each value kept as the sender spelled it
// (JSON.parse would turn `1.0` into 1, lose the digits of 12345678901234567890 and make
// `1e400` Infinity). One pass, no recursion: nesting is counted on an explicit stack, so
// 100,000 levels are an answer, not a stack overflow.

/** Where one member's value lies in the scanned text, and how deeply it nests. */
export interface MemberSpan {
  readonly start: number;
  readonly end: number;
  /** Whether whitespace occurs between the value's tokens (compactText then drops it). */
  readonly spaced: boolean;
  /** Levels of arrays and objects inside the value: 0 for a scalar, 1 for `{}` or `[1]`. */
  readonly depth: number;
}

/** The members of an object, by key (a repeated key: the last one wins, as with JSON.parse). */
export type Members = Map<string, MemberSpan>;

/** Thrown for text that is not JSON; `at` is the offset of the first offending character. */
export class JsonSyntaxError extends Error {
  readonly at: number;

  constructor(at: number) {
    super(`unexpected character at position ${at}`);
    this.name = 'JsonSyntaxError';
    this.at = at;
  }
}

const OBJECT = 1;
const ARRAY = 2;

/**
 * Scan `text`, which must be one JSON value. Returns the members of an object (the value
 * text of each is `compactText(text, span)`), undefined when the value is not an object.
 * Throws JsonSyntaxError when the text is not JSON.
 */
export function scanMembers(text: string): Members | undefined {
  const members: Members = new Map();
  const isObject = forEachMember(text, (key, span) => { members.set(key, span); });
  return isObject ? members : undefined;
}

/**
 * Call `visit` for every member of the object `text` holds, in order (repeated keys each
 * time), with the decoded key, its value's span and where the key's quote starts. Returns
 * false (visiting nothing) when the value is not an object; throws JsonSyntaxError when the
 * text is not JSON.
 */
export function forEachMember(text: string, visit: (key: string, span: MemberSpan, keyStart: number) => void): boolean {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 123) {
    i = skipSpace(text, scanValue(text, i).end);
    if (i !== text.length) throw new JsonSyntaxError(i);
    return false;
  }
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 125) {
    i = skipSpace(text, i + 1);
    if (i !== text.length) throw new JsonSyntaxError(i);
    return true;
  }
  for (;;) {
    const keyStart = i;
    const keyEnd = skipString(text, i);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 58) throw new JsonSyntaxError(i);
    const span = scanValue(text, skipSpace(text, i + 1));
    visit(stringValue(text, keyStart, keyEnd), span, keyStart);
    i = skipSpace(text, span.end);
    const c = text.charCodeAt(i);
    if (c === 44) {
      i = skipSpace(text, i + 1);
    } else if (c === 125) {
      i = skipSpace(text, i + 1);
      if (i !== text.length) throw new JsonSyntaxError(i);
      return true;
    } else {
      throw new JsonSyntaxError(i);
    }
  }
}

/**
 * Call `visit` for every item of the array `text` holds, in order, with its span (the item's
 * text is `text.slice(span.start, span.end)`, as spelled). Returns false (visiting nothing)
 * when the value is not an array; throws JsonSyntaxError when the text is not JSON.
 */
export function forEachItem(text: string, visit: (span: MemberSpan) => void): boolean {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 91) {
    i = skipSpace(text, scanValue(text, i).end);
    if (i !== text.length) throw new JsonSyntaxError(i);
    return false;
  }
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) !== 93) {
    for (;;) {
      const span = scanValue(text, i);
      visit(span);
      i = skipSpace(text, span.end);
      const c = text.charCodeAt(i);
      if (c === 93) break;
      if (c !== 44) throw new JsonSyntaxError(i);
      i = skipSpace(text, i + 1);
    }
  }
  i = skipSpace(text, i + 1);
  if (i !== text.length) throw new JsonSyntaxError(i);
  return true;
}

/**
 * Whether JSON `text` may name member `key` anywhere: a fast check that is never wrong when it
 * says no. A key may be spelled with escapes (`"max\\u005fage_s"` is `max_age_s` to every JSON
 * reader), so a text holding a backslash may name it in any spelling.
 */
export function mayNameKey(text: string, key: string): boolean {
  return text.includes(`"${key}"`) || text.includes('\\');
}

/**
 * A compact JSON object text with member `key` set to `valueJson`: in the place of its
 * first occurrence (later repeats dropped), else added last. Other members stay as spelled.
 */
export function setMember(objectText: string, key: string, valueJson: string): string {
  const member = `${JSON.stringify(key)}:${valueJson}`;
  if (objectText === '{}') return `{${member}}`;
  const parts: string[] = [];
  let found = false;
  forEachMember(objectText, (k, span, keyStart) => {
    if (k !== key) parts.push(objectText.slice(keyStart, span.end));
    else if (!found) parts.push(member);
    found ||= k === key;
  });
  if (!found) parts.push(member);
  return `{${parts.join(',')}}`;
}

/** The value of a span without the whitespace between its tokens (strings untouched). */
export function compactText(text: string, span: MemberSpan): string {
  if (!span.spaced) return text.slice(span.start, span.end);
  let out = '';
  let from = span.start;
  let i = span.start;
  while (i < span.end) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = skipString(text, i);
    } else if (isSpace(c)) {
      out += text.slice(from, i);
      while (i < span.end && isSpace(text.charCodeAt(i))) i++;
      from = i;
    } else {
      i++;
    }
  }
  return out + text.slice(from, span.end);
}

/** The string a span holds, decoded; undefined when the value is not a string. */
export function spanString(text: string, span: MemberSpan): string | undefined {
  if (text.charCodeAt(span.start) !== 34) return undefined;
  return stringValue(text, span.start, span.end);
}

// The common case without a character loop: a compact object or array whose values are
// scalars (depth 1), or scalars and such containers (depth 2), matched by one regular
// expression each, which V8 compiles to machine code. They accept only valid JSON; whatever
// they do not match (spaced, deeper or not JSON) goes through the scanner below.
const STRING = String.raw`"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"`;
const SCALAR = String.raw`(?:${STRING}|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)`;
const containers = (value: string) => [String.raw`\{(?:${STRING}:${value}(?:,${STRING}:${value})*)?\}`, String.raw`\[(?:${value}(?:,${value})*)?\]`];
const [FLAT_OBJECT, FLAT_ARRAY] = containers(SCALAR);
const COMPACT = [1, 2].map((depth) => {
  const value = depth === 1 ? SCALAR : `(?:${SCALAR}|${FLAT_OBJECT}|${FLAT_ARRAY})`;
  return { depth, pattern: new RegExp(`^(?:${containers(value).join('|')})`) };
});

// the expressions only look this far: a longer value goes through the scanner (matching
// millions of items at once would overflow the expression engine's backtracking stack)
const COMPACT_MAX_CHARS = 65_536;

/** The span of a compact container of depth 1 or 2 at `start`, else undefined. */
function compactContainer(text: string, start: number): MemberSpan | undefined {
  const rest = text.slice(start, start + COMPACT_MAX_CHARS);
  for (const { depth, pattern } of COMPACT) {
    const match = pattern.exec(rest);
    if (match) return { start, end: start + match[0].length, spaced: false, depth };
  }
  return undefined;
}

/** Scan one value starting at `start` (no leading whitespace): where it ends, spacing and depth. */
function scanValue(text: string, start: number): MemberSpan {
  const first = text.charCodeAt(start);
  if (first === 123 || first === 91) {
    const compact = compactContainer(text, start);
    if (compact) return compact;
  }
  const stack: number[] = [];
  let depth = 0;
  let spaced = false;
  let i = start;
  for (;;) {
    // a value starts at i
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) {
      stack.push(c === 123 ? OBJECT : ARRAY);
      if (stack.length > depth) depth = stack.length;
      const j = skipSpace(text, i + 1);
      if (j !== i + 1) spaced = true;
      if (text.charCodeAt(j) === (c === 123 ? 125 : 93)) {
        stack.pop();
        i = j + 1;
      } else {
        i = c === 123 ? afterKey(text, j) : j;
        if (c === 123 && !tight(text, i)) spaced = true;
        continue;
      }
    } else if (c === 34) {
      i = skipString(text, i);
    } else {
      i = skipScalar(text, i);
    }
    // after a value: close containers or go on after a comma
    for (;;) {
      if (stack.length === 0) return { start, end: i, spaced, depth };
      const j = skipSpace(text, i);
      if (j !== i) spaced = true;
      const d = text.charCodeAt(j);
      const top = stack[stack.length - 1];
      if (d === 44) {
        const k = skipSpace(text, j + 1);
        if (k !== j + 1) spaced = true;
        i = top === OBJECT ? afterKey(text, k) : k;
        if (top === OBJECT && !tight(text, i)) spaced = true;
        break;
      }
      if ((d === 125 && top === OBJECT) || (d === 93 && top === ARRAY)) {
        stack.pop();
        i = j + 1;
        continue;
      }
      throw new JsonSyntaxError(j);
    }
  }
}

/** At a key: skip `"key" :` and the whitespace after it; returns where the value starts. */
function afterKey(text: string, i: number): number {
  let j = skipSpace(text, skipString(text, i));
  if (text.charCodeAt(j) !== 58) throw new JsonSyntaxError(j);
  j = skipSpace(text, j + 1);
  return j;
}

/** Whether the value at `i` follows its key's closing quote and colon with no whitespace. */
function tight(text: string, i: number): boolean {
  return text.charCodeAt(i - 1) === 58 && text.charCodeAt(i - 2) === 34;
}

/** Past a string starting at its opening quote; throws unless it is a valid JSON string. */
function skipString(text: string, i: number): number {
  if (text.charCodeAt(i) !== 34) throw new JsonSyntaxError(i);
  i++;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 34) return i + 1;
    if (c === 92) {
      const e = text.charCodeAt(i + 1);
      if (e === 117) {
        for (let k = i + 2; k < i + 6; k++) if (!isHex(text.charCodeAt(k))) throw new JsonSyntaxError(k);
        i += 6;
      } else if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
        i += 2;
      } else {
        throw new JsonSyntaxError(i + 1);
      }
    } else if (c >= 32) {
      i++;
    } else {
      // a control character, or the end of the text (NaN)
      throw new JsonSyntaxError(i);
    }
  }
}

/** Past a number or a literal (true, false, null); throws for anything else. */
function skipScalar(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 116 && text.startsWith('true', i)) return i + 4;
  if (c === 102 && text.startsWith('false', i)) return i + 5;
  if (c === 110 && text.startsWith('null', i)) return i + 4;
  let j = i;
  if (text.charCodeAt(j) === 45) j++;
  const first = text.charCodeAt(j);
  if (first === 48) j++;
  else if (first >= 49 && first <= 57) j = skipDigits(text, j + 1);
  else throw new JsonSyntaxError(j);
  if (text.charCodeAt(j) === 46) {
    if (!isDigit(text.charCodeAt(j + 1))) throw new JsonSyntaxError(j + 1);
    j = skipDigits(text, j + 1);
  }
  const e = text.charCodeAt(j);
  if (e === 101 || e === 69) {
    j++;
    const sign = text.charCodeAt(j);
    if (sign === 43 || sign === 45) j++;
    if (!isDigit(text.charCodeAt(j))) throw new JsonSyntaxError(j);
    j = skipDigits(text, j);
  }
  return j;
}

function stringValue(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}

function skipDigits(text: string, i: number): number {
  while (isDigit(text.charCodeAt(i))) i++;
  return i;
}

function skipSpace(text: string, i: number): number {
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
