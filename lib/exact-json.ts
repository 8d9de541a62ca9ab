import { forEachItem, scanMembers } from './json-text.js';

// A number as its reading spelled it (Exact): JSON.parse makes 12345678901234567890123 a
// double that JSON.stringify writes 1.2345678901234568e+22, and 1e200 as 1e+200. What the
// daemon shows of a recorded number (an alarm's value) keeps the recorded text.

/**
 * A number and its JSON text as recorded; JSON.stringify sees the number (toJSON), exactJson the
 * text. The text may be given as a function, called once when the text is first asked for: the
 * rules read a value on every reading, and only a few of those values are ever written out.
 */
export class ExactNumber {
  private source: string | (() => string);

  constructor(readonly value: number, text: string | (() => string)) {
    this.source = text;
  }

  /** The number's JSON text as recorded. */
  get text(): string {
    if (typeof this.source === 'function') this.source = this.source();
    return this.source;
  }

  /** The number, for a serializer that does not know the class. */
  toJSON(): number {
    return this.value;
  }
}

/** The JSON text of `value` as JSON.stringify writes it, but an ExactNumber as recorded. */
export function exactJson(value: unknown): string {
  if (value instanceof ExactNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : exactJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => `${JSON.stringify(k)}:${exactJson(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The text of the value at `path` inside the JSON `text` (members by name, items by index), undefined when absent. */
export function textAt(text: string, path: readonly (string | number)[]): string | undefined {
  let at = text;
  for (const step of path) {
    let next: string | undefined;
    if (typeof step === 'number') {
      let i = 0;
      forEachItem(at, (span) => { if (i++ === step) next = at.slice(span.start, span.end); });
    } else {
      const span = scanMembers(at)?.get(step);
      next = span === undefined ? undefined : at.slice(span.start, span.end);
    }
    if (next === undefined) return undefined;
    at = next;
  }
  return at.trim();
}
