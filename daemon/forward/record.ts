import { lineHead } from '../ndjson/head.js';

export { recordId } from '../ndjson/cursor.js';

// One forwarded record: an envelope line of the log with the stream it belongs to and where
// it lies, so a cursor can be moved past it once a sink acknowledged it.

/** A line of the log as sinks receive it. */
export interface ForwardRecord {
  /** `site` or a run id: the seq counter the envelope belongs to. */
  readonly stream: string;
  readonly seq: number;
  /** The envelope's `ts` (ISO-8601 UTC). */
  readonly ts: string;
  readonly type: string;
  /** The envelope exactly as stored (one JSON object, no newline). */
  readonly line: string;
  /** The file it was read from and the byte offset just after its line ('' and 0 for an ephemeral event). */
  readonly file: string;
  readonly end: number;
  /** Read where the site stream passes over lines by seq (after the clock stepped back: see StreamPosition.bySeq). */
  readonly bySeq?: true;
  /** Read by the site segments starting at this seq (see StreamPosition.segments). */
  readonly segments?: number;
  /** An ephemeral event (store_permanently false): sent live, best-effort, never from the files. */
  readonly ephemeral?: true;
}

/** The record of an ephemeral event, from its envelope line as recorded (it has no place in any file). */
export function ephemeralRecord(stream: string, line: string): ForwardRecord | undefined {
  const head = lineHead(line);
  return head && { stream, seq: head.seq, ts: head.ts, type: head.type, line, file: '', end: 0, ephemeral: true };
}
