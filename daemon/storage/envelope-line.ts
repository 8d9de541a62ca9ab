import type { LineHead } from '../ndjson/head.js';
import { fiveKeyLine, seqPrefix } from '../ndjson/envelope.js';
import { Reading } from './current-view.js';

// Readings of envelope lines (the line format itself is daemon/ndjson/envelope.ts).

export { envelopeLine } from '../ndjson/envelope.js';

/** The same envelope line under another seq (a batch written again one event at a time after a failed write). */
export function withSeq(reading: Reading, seq: number): Reading {
  const prefix = seqPrefix(reading.seq);
  if (reading.seq === seq) return reading;
  if (!reading.json.startsWith(prefix)) throw new Error(`not an envelope line of seq ${reading.seq}`);
  return new Reading(reading.type, seq, `${seqPrefix(seq)}${reading.json.slice(prefix.length)}`, reading.mayCarryLimit, reading.receivedMono,
    reading.tsMs, reading.ownLimit, reading.receivedAt, reading.dataText);
}

/** A reading of a line read back from a file (see fiveKeyLine: the original service's lines brought to five keys). */
export function readingOfLine(head: LineHead, line: string, receivedAt = NaN): Reading {
  return new Reading(head.type, head.seq, fiveKeyLine(line), true, NaN, NaN, undefined, receivedAt);
}
