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
  /** An ephemeral event (store_permanently false): sent live, best-effort, never from the files. */
  readonly ephemeral?: true;
}

/** The record of an ephemeral event, from its envelope line as recorded (it has no place in any file). */
export function ephemeralRecord(stream: string, line: string): ForwardRecord | undefined {
  const head = envelopeHead(line);
  return head && { stream, seq: head.seq, ts: head.ts, type: head.type, line, file: '', end: 0, ephemeral: true };
}

/** `stream:seq`: the id every record carries so consumers can deduplicate. */
export function recordId(record: { stream: string; seq: number }): string {
  return `${record.stream}:${record.seq}`;
}

// Meridian writes `{"seq":N,"ts":"...","type":"...",...}` in that key order: read the head
// without parsing the whole line (data can be large); anything else is parsed in full.
const HEAD = /^\{"seq":(\d{1,15}),"ts":"([^"\\]*)","type":("(?:[^"\\]|\\.)*")/;

/** The seq, ts and type of an envelope line, or undefined when the line is no envelope. */
export function envelopeHead(line: string): { seq: number; ts: string; type: string } | undefined {
  const m = HEAD.exec(line);
  if (m) return { seq: Number(m[1]), ts: m[2]!, type: JSON.parse(m[3]!) as string };
  try {
    const v = JSON.parse(line) as { seq?: unknown; ts?: unknown; type?: unknown };
    if (v && typeof v === 'object' && Number.isSafeInteger(v.seq) && typeof v.ts === 'string' && typeof v.type === 'string') {
      return { seq: v.seq as number, ts: v.ts, type: v.type };
    }
  } catch { /* not JSON */ }
  return undefined;
}
