import type { StoreHead } from '../storage/store.js';
import type { Segment } from '../storage/timeline.js';
import type { SinkCursor } from './cursor.js';
import type { LogTail, StreamPosition } from './log-tail.js';

// Which runs a sink takes in, from the store's timeline (its segments in record order): every
// run segment from the sink's mark on that its cursor does not follow yet, each from where the
// segment began (the reader passes over the run file's seqs up to it). The mark is saved with
// the cursor, so a run recorded while the sink was down (and stopped before a restart) is
// still found after the restart. A run file retention deleted (`removed`) is passed over: a
// sink follows a file only until it has read it to its end, and retention waits for that.

/** A stream to start following, and where. */
export interface NewStream {
  stream: string;
  position: StreamPosition;
}

/**
 * The runs of `segments[from..]` a cursor (`at`: where it follows a stream) does not know yet,
 * in record order, and how many segments they cover: a run id used again in another run file
 * while the cursor (or this sweep) still follows its earlier one ends the sweep there, so
 * that segment is taken in once the earlier one is forwarded to its end (the cursor holds
 * one position per stream).
 */
export function runsAfter(segments: readonly Segment[], from: number, at: (stream: string) => StreamPosition | undefined):
  { found: NewStream[]; covered: number } {
  const found: NewStream[] = [];
  for (let i = from; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.stream === 'site' || segment.file === undefined || segment.removed === true) continue;
    const held = at(segment.stream)?.file ?? found.find((s) => s.stream === segment.stream)?.position.file;
    if (held === segment.file) continue;
    if (held !== undefined) return { found, covered: i };
    found.push({ stream: segment.stream, position: { file: segment.file, offset: 0, seq: segment.after } });
  }
  return { found, covered: segments.length };
}

/**
 * The mark of a sink without one. A new sink starting at the beginning of the log takes in
 * every run of the timeline (the runs on disk are the log as much as the site days are); one
 * starting at the end, or a cursor of an earlier version (what it forwarded is not known), takes
 * in the active run, if any (the timeline's last segment is then the run's, open), and no run before it.
 */
export function initialMark(segments: readonly Segment[], everyRun = false): number {
  if (everyRun) return 0;
  const last = segments.at(-1);
  return last && last.stream !== 'site' && !Number.isFinite(last.to) ? segments.length - 1 : segments.length;
}

/** Take in the runs of the timeline the cursor does not follow yet (recorded while the sink was down, too). */
export function takeRuns(cursor: SinkCursor, segments: readonly Segment[]): void {
  const { found, covered } = runsAfter(segments, cursor.timeline ?? 0, (s) => cursor.at(s));
  for (const { stream, position } of found) cursor.add(stream, position);
  cursor.markTimeline(covered);
}

/**
 * Load a sink's cursor, or start one at the `start` of the log (the oldest site file, or the
 * end), and take in the runs it does not follow yet. Returns why a saved cursor was
 * unusable, if it was (then a sink starting at the end notes what it passed over).
 */
export function openCursor(cursor: SinkCursor, start: 'beginning' | 'end', head: StoreHead, tail: Pick<LogTail, 'siteStart' | 'siteEnd'>): string | undefined {
  const loaded = cursor.load();
  // from the beginning nothing is lost (only sent again); from the end, what came before is passed over
  if (loaded instanceof Error && start === 'end') cursor.skip(`${loaded.message}: the sink started again at the end of the log, and what was recorded before was not forwarded`);
  // the store may have no site file open (none yet, or the last one is a past day's): the end is then the newest on disk
  const siteEnd = () => (head.site.file === '' ? tail.siteEnd(head.site.seq) : endOf(head.site));
  if (loaded !== true) cursor.add('site', start === 'end' ? siteEnd() : tail.siteStart());
  if (cursor.timeline === undefined) {
    // a new sink: every run on disk (from the beginning) or the active run from its end; a cursor of an earlier version: the active run
    cursor.markTimeline(initialMark(head.segments, start === 'beginning' && loaded !== true));
    if (start === 'end' && loaded !== true && head.run) cursor.add(head.run.id, endOf(head.run));
  }
  takeRuns(cursor, head.segments);
  return loaded instanceof Error ? loaded.message : undefined;
}

/** The end of a stream as the store wrote it: a sink told to start at the end of the log. */
function endOf(end: { file: string; bytes: number; seq: number }): StreamPosition {
  return { file: end.file, offset: end.bytes, seq: end.seq };
}
