import { MeridianError } from '../../lib/errors.js';

// An event's identity. Two spellings exist, and both name (stream, seq):
// - the cursor of GET /history and GET /stream: `site:<seq>` or `run:<run id>:<seq>`,
//   parsed back to resume;
// - the id of a forwarded record: `<stream>:<seq>` (`site:1042`, `014:17`), which sinks
//   and their consumers deduplicate on (already stored by consumers, so kept as it is).
// A site event has the same text in both; a run event's cursor adds `run:` in front of the id.

/**
 * The cursor text of the event `seq` of `stream` (`site` or a run id). `segment`: which of the
 * run's segments holds it (1 first), given only where the seq repeats across its segments (a
 * run id used again in data recorded before seqs continued, or the original service's nights):
 * `run:001:7@2`.
 */
export function formatCursor(stream: string, seq: number, segment?: number): string {
  return stream === 'site' ? `site:${seq}` : `run:${stream}:${seq}${segment === undefined ? '' : `@${segment}`}`;
}

/** The largest seq a cursor can name (a JSON number stays exact up to it). */
const MAX_SEQ = Number.MAX_SAFE_INTEGER;
const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;
const EXAMPLES = 'such as site:1042 or run:014:17';

/**
 * The stream and seq a cursor text names; INVALID_CURSOR (naming `what`: `cursor`, `since`,
 * `Last-Event-ID`) with one sentence saying what is wrong (docs/http-api.md#cursors-and-the-record-order).
 */
export function parseCursor(text: string, what: string): { stream: string; seq: number; segment?: number } {
  const fail = (why: string): never => {
    throw new MeridianError('INVALID_CURSOR', `${what} ${JSON.stringify(text)} ${why}`);
  };
  if (text === '') throw new MeridianError('INVALID_CURSOR', `${what} is empty; it must be a cursor ${EXAMPLES}.`);
  let stream: string;
  let seqText: string;
  if (text.startsWith('site:')) {
    stream = 'site';
    seqText = text.slice('site:'.length);
    if (seqText.includes(':')) fail("is not a cursor: a site cursor is site:<seq>, such as site:1042.");
  } else if (text.startsWith('run:')) {
    const rest = text.slice('run:'.length);
    const colon = rest.lastIndexOf(':');
    if (colon < 0) fail(`has no seq: a run cursor is run:<run id>:<seq>, such as run:014:17.`);
    stream = rest.slice(0, colon);
    seqText = rest.slice(colon + 1);
    if (stream.includes(':')) fail(`is not a cursor: a run id never holds ":" (a run cursor is run:<run id>:<seq>, such as run:014:17).`);
    if (!RUN_ID.test(stream)) fail(`does not name a run id: ${JSON.stringify(stream)} is not 1-128 letters, digits, ".", "_" or "-".`);
    const segment = /^(\d+)@([1-9]\d{0,8})$/.exec(seqText);
    if (segment) return { stream, seq: seqOf(segment[1]!, stream, fail), segment: Number(segment[2]) };
  } else {
    fail(`is not a cursor: it must be site:<seq> or run:<run id>:<seq>, ${EXAMPLES}.`);
  }
  return { stream: stream!, seq: seqOf(seqText!, stream!, fail) };
}

// the seq of a cursor: a whole number written plainly (the daemon's own spelling), within 2^53
function seqOf(seqText: string, stream: string, fail: (why: string) => never): number {
  if (seqText === '') fail('has no seq after its last ":".');
  if (!/^\d+$/.test(seqText)) fail(`is not a cursor: its seq ${JSON.stringify(seqText)} is not a whole number 0 or more.`);
  const seq = Number(seqText);
  if (seqText.length > 1 && seqText.startsWith('0')) fail(`is not a cursor: its seq has leading zeros (write ${formatCursor(stream, seq)}).`);
  if (!Number.isSafeInteger(seq)) fail(`is not a cursor: its seq is beyond the largest one a cursor can name (${MAX_SEQ}).`);
  if (seq === 0 && stream !== 'site') fail(`names no event: a run's seqs start at 1 (site:0 alone names the position before everything).`);
  return seq;
}

/** The id of a forwarded record: `<stream>:<seq>`, what consumers deduplicate on. */
export function recordId(record: { stream: string; seq: number }): string {
  return `${record.stream}:${record.seq}`;
}
