import type { Reading } from '../storage/current-view.js';
import { numberAt } from '../../lib/number-text.js';
import { UNKNOWN } from './unknown.js';

// A field of a reading as the rule language reads it: the value at a path under the
// envelope's `data` or `meta`, as JSON.parse gives it, UNKNOWN when the path is not there.
// A top-level member of a flat `data` object (the common reading: a dozen numbers and a few
// words) is read from the recorded text itself, which costs a fraction of parsing the line.

// a key found by its text alone: a name (no escape can spell it another way, no `"` in it)
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
// an object of scalars, compact, without escapes: every `"` in it opens or closes a string
const FLAT_OBJECT = /^\{[^{[\\\s]*\}$/;

/** A reading's data text when it is a flat object (read member by member: flatMember), else null. */
export function flatData(reading: Reading): string | null {
  const text = reading.dataText;
  return text !== undefined && FLAT_OBJECT.test(text) ? text : null;
}

/** What a field's member starts with in a flat data text (`"name":`), undefined for a field not read that way (not one plain name of `data`). */
export function flatPattern(part: 'data' | 'meta', path: readonly (string | number)[]): string | undefined {
  return part === 'data' && path.length === 1 && typeof path[0] === 'string' && PLAIN_KEY.test(path[0]) ? `"${path[0]}":` : undefined;
}

/**
 * The value at `path` inside `reading`'s `part`, UNKNOWN when absent; `flat`: flatData(reading),
 * `pattern`: flatPattern(part, path) (a reference keeps it from its compilation).
 */
export function fieldValue(reading: Reading, part: 'data' | 'meta', path: readonly (string | number)[], flat: string | null,
  pattern = flatPattern(part, path)): unknown {
  if (flat !== null && pattern !== undefined) return flatMember(flat, pattern);
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
 * The member of a flat object text (FLAT_OBJECT) that `pattern` (flatPattern: `"name":`)
 * starts, as JSON.parse reads it: the last one when repeated. `"key":` after `{` or `,` opens a member: a string cannot end in
 * front of a name character, and a value's string follows `:`.
 */
export function flatMember(text: string, pattern: string): unknown {
  let at = text.lastIndexOf(pattern);
  while (at > 0) {
    const before = text.charCodeAt(at - 1);
    if (before === 123 || before === 44) break;
    at = text.lastIndexOf(pattern, at - 1);
  }
  if (at <= 0) return UNKNOWN;
  const from = at + pattern.length;
  const first = text.charCodeAt(from);
  if (first === 34) return text.slice(from + 1, text.indexOf('"', from + 1));
  let end = from + 1;
  for (let c = text.charCodeAt(end); c !== 44 && c !== 125; c = text.charCodeAt(++end));
  if (first === 116) return true;
  if (first === 102) return false;
  if (first === 110) return null;
  return numberAt(text, from, end);
}
