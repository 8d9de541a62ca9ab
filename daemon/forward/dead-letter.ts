import fs from 'node:fs';
import { formatTs } from '../../lib/time.js';
import { recordId, type ForwardRecord } from './record.js';

// The dead-letter file of a sink: the records its peer refused for good, one NDJSON line
// each, so the sink can move on and an operator can look at them (and replay them) later.

/** Append one refused record with the reason; the envelope is kept byte for byte. */
export function writeDeadLetter(file: string, sink: string, record: ForwardRecord, reason: string, nowMs: number): void {
  const head = JSON.stringify({ at: formatTs(nowMs), sink, id: recordId(record), stream: record.stream, seq: record.seq, reason });
  const line = `${head.slice(0, -1)},"envelope":${record.line}}\n`;
  fs.appendFileSync(file, line);
}

/** How many records a dead-letter file holds (0 when there is none). */
export function countDeadLetters(file: string): number {
  let text: Buffer;
  try {
    text = fs.readFileSync(file);
  } catch {
    return 0;
  }
  let n = 0;
  for (let i = text.indexOf(10); i !== -1; i = text.indexOf(10, i + 1)) n++;
  return n;
}
