// The top-level numbers of a JSON object text in one pass without allocating: what the night report's weather statistics read from each of a night's
// readings (hundreds of thousands), where lib/json-text's full scan costs most of the time.
// Nested values and strings are stepped over (strings escape-aware), not validated: the
// recorded data was validated when it was recorded. Returns false for text that is not one
// object ending exactly at the end of the text (the caller then scans it with lib/json-text).

/** Called per top-level member whose value is a number: where its key (inside the quotes) and its number lie. */
export type NumberVisit = (keyStart: number, keyEnd: number, start: number, end: number) => void;

/** Visit the numeric members of the object `text`; false when `text` is not one object. */
export function forEachTopNumber(text: string, visit: NumberVisit): boolean {
  let i = space(text, 0);
  if (text.charCodeAt(i) !== 123) return false;
  i = space(text, i + 1);
  if (text.charCodeAt(i) === 125) return space(text, i + 1) === text.length;
  for (;;) {
    if (text.charCodeAt(i) !== 34) return false;
    const keyStart = i + 1;
    let keyEnd = keyStart;
    for (let c = text.charCodeAt(keyEnd); c !== 34; c = text.charCodeAt(++keyEnd)) {
      if (c === 92 || Number.isNaN(c)) return false; // an escaped key (the full scan decodes it), or no end
    }
    i = space(text, keyEnd + 1);
    if (text.charCodeAt(i) !== 58) return false;
    i = space(text, i + 1);
    const start = i;
    const c = text.charCodeAt(i);
    if (c === 45 || (c >= 48 && c <= 57)) {
      while (i < text.length && NUMBER_CHAR[text.charCodeAt(i)] === 1) i++;
      visit(keyStart, keyEnd, start, i);
    } else i = skipValue(text, i);
    if (i < 0) return false;
    i = space(text, i);
    const next = text.charCodeAt(i);
    if (next === 125) return space(text, i + 1) === text.length;
    if (next !== 44) return false;
    i = space(text, i + 1);
  }
}

const NUMBER_CHAR = new Uint8Array(128);
for (const ch of '0123456789+-.eE') NUMBER_CHAR[ch.charCodeAt(0)] = 1;

/** The end of the string, literal, object or array at `i`, or -1. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 34) return skipString(text, i);
  if (c !== 123 && c !== 91) {
    while (i < text.length && /[a-z]/.test(text[i]!)) i++;
    return i;
  }
  let depth = 0;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 34) {
      i = skipString(text, i);
      if (i < 0) return -1;
      continue;
    }
    if (d === 123 || d === 91) depth++;
    else if (d === 125 || d === 93) depth--;
    i++;
    if (depth === 0) return i;
  }
  return -1;
}

/** The end of the string starting at `i` (after its closing quote), or -1. */
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) j++;
    else if (c === 34) return j + 1;
  }
  return -1;
}

function space(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}
