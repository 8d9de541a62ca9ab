import { MeridianError } from '../../lib/errors.js';

// An event's identity. Two spellings exist, and both name (stream, seq):
// - the cursor of GET /history and GET /stream: `site:<seq>` or `run:<run id>:<seq>`,
//   parsed back to resume;
// - the id of a forwarded record: `<stream>:<seq>` (`site:1042`, `014:17`), which sinks
//   and their consumers deduplicate on (already stored by consumers, so kept as it is).
// A site event has the same text in both; a run event's cursor adds `run:` in front of the id.

/** The cursor text of the event `seq` of `stream` (`site` or a run id). */
export function formatCursor(stream: string, seq: number): string {
  return stream === 'site' ? `site:${seq}` : `run:${stream}:${seq}`;
}

/** The stream and seq a cursor text names; INVALID_CURSOR (naming `what`) when it is not a cursor. */
export function parseCursor(text: string, what: string): { stream: string; seq: number } {
  const m = /^(?:site|run:([A-Za-z0-9._-]{1,128})):(0|[1-9]\d{0,15})$/.exec(text);
  const seq = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(seq)) {
    throw new MeridianError('INVALID_CURSOR', `${what} must be a cursor such as site:1042 or run:014:17; got ${JSON.stringify(text)}`);
  }
  return { stream: m[1] ?? 'site', seq };
}

/** The id of a forwarded record: `<stream>:<seq>`, what consumers deduplicate on. */
export function recordId(record: { stream: string; seq: number }): string {
  return `${record.stream}:${record.seq}`;
}
