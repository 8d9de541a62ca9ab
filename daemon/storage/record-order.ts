import type { Reading } from './current-view.js';
import type { Segment } from './timeline.js';

// Which reading of a type was recorded last, across the site and the runs, whatever the clock
// said: the timeline's segments give the record order of (stream, seq). A reading in no segment
// (recorded before the journal existed, or in a directory of the original service) is compared
// by its `ts`, the only order left.

/** Readings of one stream: `site`, or a run's id. */
export interface StreamReadings {
  stream: string;
  readings: Iterable<Reading>;
}

/** Per type, the reading recorded last among the sources (on a tie, the later source's). */
export function newestRecorded(segments: readonly Segment[], sources: StreamReadings[]): Reading[] {
  const view = new Map<string, { reading: Reading; rank: number }>();
  for (const { stream, readings } of sources) {
    for (const reading of readings) {
      const rank = rankOf(segments, stream, reading.seq);
      const held = view.get(reading.type);
      if (!held || recordedAfter(reading, rank, held.reading, held.rank)) view.set(reading.type, { reading, rank });
    }
  }
  return [...view.values()].map(({ reading }) => reading);
}

/** The index of the segment that recorded `seq` of `stream`; -1 when none did. */
function rankOf(segments: readonly Segment[], stream: string, seq: number): number {
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!;
    if (segment.stream === stream && seq > segment.after && seq <= segment.to) return i;
  }
  return -1;
}

function recordedAfter(a: Reading, aRank: number, b: Reading, bRank: number): boolean {
  if (aRank >= 0 && bRank >= 0) return aRank !== bRank ? aRank > bRank : a.seq >= b.seq;
  return a.envelope.ts >= b.envelope.ts;
}
