import type { Reading } from '../storage/current-view.js';
import { numberAt } from '../../lib/number-text.js';
import { UNKNOWN } from './unknown.js';

// A field of a reading as the rule language reads it: the value at a path under the
// envelope's `data` or `meta`, as JSON.parse gives it, UNKNOWN when the path is not there.
// A top-level member of a flat `data` object (the common reading: a dozen numbers and a few
// words) is read in the data text the line was made of: a fraction of parsing the line.

// a key found by its text alone: a name (no escape can spell it another way, no `"` in it)
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Not told by the data text (a member spelled with whitespace around it, or none): read through the parsed envelope instead. */
const NOT_IN_TEXT = Symbol('not told by the data text');

/**
 * Whether a reading's data is a flat object, read member by member in its data text: that text
 * known (a reading this daemon stamped), an object with no `{`, `[` or `\` inside it. Without an
 * escape every `"` opens or closes a string, so every `"name":` in it is a member's key (after
 * a closing quote JSON allows no name character).
 */
export function isFlat(reading: Reading): boolean {
  const text = reading.dataText;
  return text !== undefined && text.charCodeAt(0) === 123 && text.indexOf('{', 1) < 0 && text.indexOf('[') < 0 && text.indexOf('\\') < 0;
}

/**
 * What follows the opening quote of a field's member in a flat data text (`name":`), undefined
 * for a field not read that way (not one plain name of `data`). Searched for without its quote:
 * a search that starts on a letter skips ahead faster than one on `"`, the text's commonest
 * character.
 */
export function flatPattern(part: 'data' | 'meta', path: readonly (string | number)[]): string | undefined {
  return part === 'data' && path.length === 1 && typeof path[0] === 'string' && PLAIN_KEY.test(path[0]) ? `${path[0]}":` : undefined;
}

/**
 * The value at `path` inside `reading`'s `part`, UNKNOWN when absent; `flat`: isFlat(reading),
 * `pattern`: flatPattern(part, path) (a reference keeps it from its compilation).
 */
export function fieldValue(reading: Reading, part: 'data' | 'meta', path: readonly (string | number)[], flat: boolean,
  pattern = flatPattern(part, path)): unknown {
  if (flat && pattern !== undefined) {
    const value = flatMember(reading.dataText!, pattern);
    if (value !== NOT_IN_TEXT) return value;
  }
  const envelope = reading.envelope;
  let value: unknown = part === 'data' ? envelope.data : envelope.meta;
  for (const step of path) {
    const inside = typeof step === 'number' ? Array.isArray(value) && step < value.length
      : value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, step);
    if (!inside) return UNKNOWN;
    value = (value as Record<string | number, unknown>)[step];
  }
  return value;
}

/**
 * The member whose key `pattern` (flatPattern: `name":`) ends in the flat object text `text`
 * (isFlat), as JSON.parse reads it (the last one when repeated); NOT_IN_TEXT when it cannot be
 * told in the text (not there, or whitespace around it: not the daemon's compact spelling; the
 * parsed envelope tells). One pass of indexOf over the text (which outruns any loop of ours).
 */
export function flatMember(text: string, pattern: string): unknown {
  let at = keyAt(text, pattern, 1);
  if (at < 0) return NOT_IN_TEXT;
  // a later member of the same name is the one JSON.parse keeps
  for (let next = keyAt(text, pattern, at + pattern.length); next >= 0; next = keyAt(text, pattern, next + pattern.length)) at = next;
  const from = at + pattern.length;
  const first = text.charCodeAt(from);
  if (first === 34) return text.slice(from + 1, text.indexOf('"', from + 1));
  if (first === 116) return true;
  if (first === 102) return false;
  if (first === 110) return null;
  if (first !== 45 && (first < 48 || first > 57)) return NOT_IN_TEXT;
  let stop = from + 1;
  for (let c = text.charCodeAt(stop); c !== 44 && c !== 125; c = text.charCodeAt(++stop));
  return numberAt(text, from, stop);
}

/** The next `pattern` from `from` right after a `"` (a key's whole name: `xname":` does not end `name`), -1 when none. */
function keyAt(text: string, pattern: string, from: number): number {
  let at = text.indexOf(pattern, from);
  while (at > 0 && text.charCodeAt(at - 1) !== 34) at = text.indexOf(pattern, at + 1);
  return at;
}
