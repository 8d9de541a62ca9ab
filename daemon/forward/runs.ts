import type { Segment } from '../storage/timeline.js';
import type { StreamPosition } from './log-tail.js';

// Which runs a sink takes in, from the store's timeline (its segments in record order): every
// run segment from the sink's mark on that its cursor does not follow yet, each from where the
// segment began (the reader passes over the run file's seqs up to it). The mark is saved with
// the cursor, so a run recorded while the sink was down (and stopped before a restart) is
// still found after the restart.

/** A stream to start following, and where. */
export interface NewStream {
  stream: string;
  position: StreamPosition;
}

/** The runs of `segments[from..]` a cursor (`follows`) does not know yet, in record order. */
export function runsAfter(segments: readonly Segment[], from: number, follows: (stream: string) => boolean): NewStream[] {
  const found: NewStream[] = [];
  for (let i = from; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.stream === 'site' || segment.file === undefined || follows(segment.stream)) continue;
    if (found.some((s) => s.stream === segment.stream)) continue;
    found.push({ stream: segment.stream, position: { file: segment.file, offset: 0, seq: segment.after } });
  }
  return found;
}

/**
 * The mark of a sink without one: a new sink (or a cursor of an earlier version) takes in the
 * active run, if any (the timeline's last segment is then the run's, open), and no run before it.
 */
export function initialMark(segments: readonly Segment[]): number {
  const last = segments.at(-1);
  return last && last.stream !== 'site' && !Number.isFinite(last.to) ? segments.length - 1 : segments.length;
}
