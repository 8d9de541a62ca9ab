import { forEachItem, forEachMember, type MemberSpan } from '../lib/json-text.js';

// The daemon's answers as text, cut into the envelopes they hold without decoding them: a
// program that passes readings on (the CLI's JSON outputs) hands over the daemon's bytes,
// where JSON.parse + JSON.stringify would respell them (`-10.0` -> `-10`, `"\u00e9"` -> `"é"`).

/** The text of member `key` of the object `objectText`, as spelled; undefined when absent. */
export function memberText(objectText: string, key: string): string | undefined {
  let found: MemberSpan | undefined;
  forEachMember(objectText, (k, span) => { if (k === key) found = span; });
  return found === undefined ? undefined : objectText.slice(found.start, found.end);
}

/** The text of each member of an object text, by key (a repeated key: the last one). */
export function memberTexts(objectText: string): Map<string, string> {
  const texts = new Map<string, string>();
  forEachMember(objectText, (key, span) => { texts.set(key, objectText.slice(span.start, span.end)); });
  return texts;
}

/** The envelope texts of a `GET /current` answer (`{"current": {...}, ...}`), by type. */
export function currentEnvelopeTexts(answerText: string): Map<string, string> {
  const current = memberText(answerText, 'current');
  return current === undefined ? new Map() : memberTexts(current);
}

/** The envelope texts of a `GET /history` page (`{"events": [...], "next_cursor": ...}`), in order. */
export function historyEnvelopeTexts(answerText: string): string[] {
  const events = memberText(answerText, 'events') ?? '[]';
  const texts: string[] = [];
  forEachItem(events, (span) => { texts.push(events.slice(span.start, span.end)); });
  return texts;
}
