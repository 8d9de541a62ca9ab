import { UNKNOWN_END } from '../storage/timeline.js';
import type { StoreHead } from '../storage/store.js';
import type { StreamPosition } from './log-tail.js';

// How far a sink is behind, from the store's head (no file is read): per stream, the seqs
// between the sink's position and the newest line the store wrote (`lineSeqs`: the newest
// seq with a line per stream, from the store's onRecorded since start; else the stream's
// last seq); a position at the very end of the stream's newest file is caught up whatever
// seq the store used last (an ephemeral event takes a seq and writes no line).

/** Events recorded but not yet acknowledged, over the streams of a cursor. */
export function lagEvents(positions: readonly (readonly [string, StreamPosition])[], head: StoreHead,
  lineSeqs: ReadonlyMap<string, number> = new Map()): number {
  let lag = 0;
  for (const [stream, pos] of positions) lag += streamLag(stream, pos, head, lineSeqs.get(stream));
  return lag;
}

/** A sink's lag once `chunk` is acknowledged: the events left, and how old the newest of the chunk is (0 when none are left). */
export function lagAfter(lag: number, chunk: readonly { ts: string }[], nowMs: number): { events: number; seconds: number } {
  const events = Math.max(0, lag - chunk.length);
  const newest = chunk.length === 0 ? NaN : Date.parse(chunk[chunk.length - 1]!.ts);
  return { events, seconds: events === 0 || Number.isNaN(newest) ? 0 : Math.max(0, (nowMs - newest) / 1000) };
}

/** How old (s) the oldest event not yet acknowledged is (`oldestTs`), given the lag; 0 when none is left. */
export function pendingAge(events: number, oldestTs: string | undefined, nowMs: number): number {
  const oldest = oldestTs === undefined ? NaN : Date.parse(oldestTs);
  return events === 0 || Number.isNaN(oldest) ? 0 : Math.max(0, (nowMs - oldest) / 1000);
}

function streamLag(stream: string, pos: StreamPosition, head: StoreHead, lineSeq: number | undefined): number {
  const end = stream === 'site' ? head.site : head.run?.id === stream ? head.run : undefined;
  if (end) return pos.file === end.file && pos.offset >= end.bytes ? 0 : Math.max(0, (lineSeq ?? end.seq) - pos.seq);
  // a stopped run: its last seq is where its last segment of the timeline ended
  let last = 0;
  // (an unknown end, UNKNOWN_END: a run that could not resume after a crash, counts from its start)
  for (const segment of head.segments) {
    if (segment.stream === stream && Number.isFinite(segment.to)) last = Math.max(last, segment.to === UNKNOWN_END ? segment.after : segment.to);
  }
  return Math.max(0, last - pos.seq);
}
