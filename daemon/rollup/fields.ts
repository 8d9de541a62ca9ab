import { forEachMember } from '../../lib/json-text.js';

// The numeric fields of a reading's data, found in its JSON text so that each number keeps
// the spelling it was recorded with (first/last/min/max are answered as spelled: Exact).

/** One numeric field of a reading: its name (`data.a.b`), its text as recorded, its value. */
export interface NumericField {
  name: string;
  text: string;
  value: number;
}

/** How deep into nested objects fields are looked for, and how many a reading may give. */
export const MAX_FIELD_DEPTH = 4;
export const MAX_FIELDS = 64;

const NUMBER_START = /^[-0-9]/;

/**
 * The numeric fields of `data` (JSON text): a number itself (`data`), or the numbers of its
 * object members, nested objects included (`data.wind.speed`), up to MAX_FIELD_DEPTH levels and
 * MAX_FIELDS fields. Keys holding `.` are left out (their name would be ambiguous), so are
 * arrays, non-numbers and numbers beyond a double's range (1e400).
 */
export function numericFields(data: string, seen?: FieldsSeen): NumericField[] {
  const found: NumericField[] = [];
  visit(data, 'data', 0, found, seen);
  return found;
}

/** Set when a reading's top-level members are not all taken as named (a key holding `.`, an empty or repeated key, past MAX_FIELDS). */
export interface FieldsSeen {
  omitted: boolean;
}

function visit(text: string, name: string, depth: number, found: NumericField[], seen?: FieldsSeen): void {
  if (found.length >= MAX_FIELDS) {
    if (seen) seen.omitted = true;
    return;
  }
  if (NUMBER_START.test(text)) {
    const value = Number(text);
    if (Number.isFinite(value)) found.push({ name, text, value });
    return;
  }
  if (text.charCodeAt(0) !== 123 || depth >= MAX_FIELD_DEPTH) return;
  try {
    forEachMember(text, (key, span) => {
      if (key.includes('.') || key === '') {
        if (seen && depth === 0) seen.omitted = true;
        return;
      }
      const child = `${name}.${key}`;
      // a repeated key: the last one wins, as with JSON.parse (rare: looked for only then)
      const before = found.findIndex((f) => f.name === child || f.name.startsWith(`${child}.`));
      if (before !== -1) {
        found.splice(before, found.length - before, ...found.slice(before).filter((f) => f.name !== child && !f.name.startsWith(`${child}.`)));
        if (seen && depth === 0) seen.omitted = true;
      }
      visit(text.slice(span.start, span.end), child, depth + 1, found, seen);
    });
  } catch {
    // not JSON: no fields (a recorded line always is)
  }
}
