import { compactText, forEachMember, type MemberSpan } from '../../lib/json-text.js';

// The envelope line as text: built by concatenation (data and meta as the caller spelled
// them), and lines of other writers (the original PANOPTES service adds a "stream" key)
// brought to the envelope's five keys without re-spelling a number.

const KEYS = ['seq', 'ts', 'type', 'data', 'meta'];

/** The envelope line (no newline) of an event: `data` and `meta` are JSON texts, put in as they are. */
export function envelopeLine(seq: number, ts: string, typeJson: string, data: string, meta: string): string {
  return `{"seq":${seq},"ts":"${ts}","type":${typeJson},"data":${data},"meta":${meta}}`;
}

/** The prefix every envelope line of `seq` starts with (the only part that changes when a seq moves). */
export function seqPrefix(seq: number): string {
  return `{"seq":${seq},`;
}

/**
 * A line read back from a file as an envelope line: the line itself when it has the five
 * keys in order, else rebuilt from its members' texts (unknown keys such as the original
 * service's "stream" dropped, a missing data null, a missing meta {}).
 */
export function fiveKeyLine(line: string): string {
  const spans = new Map<string, MemberSpan>();
  const order: string[] = [];
  forEachMember(line, (key, span) => {
    spans.set(key, span);
    order.push(key);
  });
  if (order.length === KEYS.length && order.every((key, i) => key === KEYS[i])) return line;
  const text = (key: string, fallback: string) => {
    const span = spans.get(key);
    return span ? compactText(line, span) : fallback;
  };
  return `{"seq":${text('seq', '0')},"ts":${text('ts', '""')},"type":${text('type', '""')},` +
    `"data":${text('data', 'null')},"meta":${text('meta', '{}')}}`;
}
