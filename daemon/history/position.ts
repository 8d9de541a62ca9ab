import { MeridianError } from '../../lib/errors.js';
import { formatCursor, parseCursor } from '../ndjson/cursor.js';
import type { StoreHead } from '../storage/store.js';
import type { Segment } from '../storage/timeline.js';

// Cursors: a position in the record order that survives restarts. The text names the last
// event seen (its spelling: daemon/ndjson/cursor.ts); the timeline
// says which segment that seq lies in, so everything after it (the rest of that segment,
// then the later segments) can be read back from the files.

/** A position: just after `seq` in segment number `segment` of the timeline. */
export interface Position {
  segment: number;
  seq: number;
}

/**
 * Where a cursor lies in the timeline: the latest segment of its stream that holds its seq
 * (a run id used again for another run_dir starts a new segment). `site:0` is the start.
 */
export function locate(head: StoreHead, text: string, what: string): Position {
  const { stream, seq, segment } = parseCursor(text, what);
  const { segments } = head;
  const last = segments.length - 1;
  if (segment !== undefined) return locateIn(head, stream, seq, segment, `${what} ${text}`);
  for (let i = last; i >= 0; i--) {
    const s = segments[i]!;
    if (s.stream !== stream || seq <= s.after) continue;
    const to = i === last ? headSeq(head) : s.to;
    if (seq <= to) return { segment: i, seq };
    throw new MeridianError('INVALID_CURSOR', `${what} ${text} is beyond the last seq recorded in ${describe(s)} (${to}).`);
  }
  if (stream === 'site' && seq === 0) return { segment: 0, seq: 0 };
  throw new MeridianError('INVALID_CURSOR', `${what} ${text} names no recorded event of this site directory` +
    (stream === 'site' ? '.' : ` (no run ${stream} in its timeline).`));
}

/** A cursor naming its segment (`run:001:7@2`): the 2nd segment of run 001, which must hold seq 7. */
function locateIn(head: StoreHead, stream: string, seq: number, ordinal: number, named: string): Position {
  const { segments } = head;
  let n = 0;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s.stream !== stream || ++n !== ordinal) continue;
    const to = i === segments.length - 1 ? headSeq(head) : s.to;
    if (seq > s.after && seq <= to) return { segment: i, seq };
    break;
  }
  throw new MeridianError('INVALID_CURSOR', `${named} names no recorded event of this site directory (segment ${ordinal} of run ${stream} holds no seq ${seq}).`);
}

/**
 * The cursor of the event `seq` in segment number `segment` of `head`'s timeline: with the
 * segment named (`@n`) only when the seq lies in more than one segment of its run, so that
 * resuming from it continues there (not in the latest one). Made once per head: a line costs
 * a look at its own run's segments only.
 */
export function cursorNamer(head: StoreHead): (segment: number, stream: string, seq: number) => string {
  const { segments } = head;
  const byRun = new Map<string, number[]>();
  segments.forEach((s, i) => {
    if (s.stream !== 'site') byRun.set(s.stream, [...(byRun.get(s.stream) ?? []), i]);
  });
  return (segment, stream, seq) => {
    const mine = byRun.get(stream);
    if (stream === 'site' || !mine || mine.length < 2) return formatCursor(stream, seq);
    const holding = mine.filter((i) => seq > segments[i]!.after && seq <= (i === segments.length - 1 ? headSeq(head) : segments[i]!.to));
    return formatCursor(stream, seq, holding.length > 1 ? mine.indexOf(segment) + 1 : undefined);
  };
}

/** The position just after everything written. */
export function headPosition(head: StoreHead): Position {
  return { segment: head.segments.length - 1, seq: headSeq(head) };
}

/**
 * The cursor of the last seq consumed in the record order: the segment being written, or,
 * while it is still empty, the last non-empty one before it (`site:0` when there is none).
 */
export function headCursor(head: StoreHead): string {
  const { segments } = head;
  for (let i = segments.length - 1; i >= 0; i--) {
    const s = segments[i]!;
    const to = i === segments.length - 1 ? headSeq(head) : s.to;
    if (to > s.after) return formatCursor(s.stream, to);
  }
  return formatCursor('site', 0);
}

/** The last seq of the segment being written. */
export function headSeq(head: StoreHead): number {
  return head.run ? head.run.seq : head.site.seq;
}

function describe(segment: Segment): string {
  return segment.stream === 'site' ? 'the site' : `run ${segment.stream}`;
}
