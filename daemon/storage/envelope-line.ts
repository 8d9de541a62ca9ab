import { compactText, forEachMember, type MemberSpan } from '../../lib/json-text.js';
import type { Envelope } from '../../lib/wire.js';
import { Reading } from './current-view.js';

// Envelope lines as text: built by concatenation (data and meta as the caller spelled them),
// and lines of other writers (the original PANOPTES service adds a "stream" key) brought to
// the envelope's five keys without re-spelling a number.

const KEYS = ['seq', 'ts', 'type', 'data', 'meta'];

/** The envelope line (no newline) of an event: `data` and `meta` are JSON texts, put in as they are. */
export function envelopeLine(seq: number, ts: string, typeJson: string, data: string, meta: string): string {
  return `{"seq":${seq},"ts":"${ts}","type":${typeJson},"data":${data},"meta":${meta}}`;
}

/** The same envelope line under another seq (a batch written again one event at a time after a failed write). */
export function withSeq(reading: Reading, seq: number): Reading {
  const prefix = `{"seq":${reading.seq},`;
  if (reading.seq === seq) return reading;
  if (!reading.json.startsWith(prefix)) throw new Error(`not an envelope line of seq ${reading.seq}`);
  return new Reading(reading.type, seq, `{"seq":${seq},${reading.json.slice(prefix.length)}`, reading.mayCarryLimit, reading.receivedMono);
}

/**
 * A reading of a line read back from a file: the line itself when it is an envelope of the
 * five keys in order, else the envelope rebuilt from its members' texts (unknown keys such
 * as the original service's "stream" dropped, a missing data null, a missing meta {}).
 */
export function readingOfLine(env: Envelope, line: string): Reading {
  const spans = new Map<string, MemberSpan>();
  const order: string[] = [];
  forEachMember(line, (key, span) => {
    spans.set(key, span);
    order.push(key);
  });
  if (order.length === KEYS.length && order.every((key, i) => key === KEYS[i])) return new Reading(env.type, env.seq, line);
  const text = (key: string, fallback: string) => {
    const span = spans.get(key);
    return span ? compactText(line, span) : fallback;
  };
  return new Reading(env.type, env.seq, `{"seq":${text('seq', '0')},"ts":${text('ts', '""')},"type":${text('type', '""')},` +
    `"data":${text('data', 'null')},"meta":${text('meta', '{}')}}`);
}
