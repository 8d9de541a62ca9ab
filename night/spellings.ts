import { forEachMember, scanMembers } from '../lib/json-text.js';
import type { Spellings } from './night-words.js';

// The weather fields' min and max as the report's text spells them (JSON.parse would respell
// `1.0` as 1): read off the answer's text, not its decoded value.

/** Each weather field's min and max text in a report's JSON text (empty when the text has none). */
export function spellingsOf(text: string): Spellings {
  const out = new Map<string, { min: string; max: string }>();
  try {
    const weather = member(text, 'weather');
    const fields = weather === undefined ? undefined : member(weather, 'fields');
    if (fields === undefined) return out;
    forEachMember(fields, (key, span) => {
      const field = fields.slice(span.start, span.end);
      const min = member(field, 'min');
      const max = member(field, 'max');
      if (min !== undefined && max !== undefined) out.set(key, { min, max });
    });
  } catch { /* not a report's JSON: no spellings, the decoded numbers are shown */ }
  return out;
}

function member(text: string, key: string): string | undefined {
  const span = scanMembers(text)?.get(key);
  return span === undefined ? undefined : text.slice(span.start, span.end);
}
