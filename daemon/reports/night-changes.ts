import type { StateClock } from './state-clock.js';

// The changes of the night report's clocks (safety verdicts, staleness turns, POCS states)
// counted at their ts, not in record order: a change recorded out of time order (a caller's
// clock behind, a backfill) lands where it happened, and the gaps are split at it.

/** One change of a clock: at `ms` (the event's ts, clamped to the span), to `value`. */
export interface ClockChange {
  ms: number;
  clock: StateClock;
  value: string;
}

/** A stretch with nothing recorded. */
export interface Gap {
  fromMs: number;
  toMs: number;
}

/**
 * An event at `ms` recorded after a later one (out of time order): a gap it falls inside is
 * split at it, each part kept when still `gapMs` or longer. `gaps` is in time order (and stays so).
 */
export function splitGapAt(gaps: Gap[], ms: number, gapMs: number): void {
  const i = gaps.findIndex((g) => g.fromMs < ms && ms < g.toMs);
  if (i < 0) return;
  const g = gaps[i]!;
  const parts = [{ fromMs: g.fromMs, toMs: ms }, { fromMs: ms, toMs: g.toMs }].filter((p) => p.toMs - p.fromMs >= gapMs);
  gaps.splice(i, 1, ...parts);
}

/**
 * Apply `changes` in ts order (record order among equal ts) and the gaps in time order to their
 * clocks: a gap is applied after the changes at its start and before those after it.
 */
export function replayChanges(changes: readonly ClockChange[], gaps: readonly Gap[], clocks: () => readonly StateClock[]): void {
  const ordered = [...changes].sort((a, b) => a.ms - b.ms);
  let g = 0;
  const gapsBefore = (ms: number) => {
    for (; g < gaps.length && gaps[g]!.fromMs < ms; g++) for (const clock of clocks()) clock.gap(gaps[g]!.fromMs, gaps[g]!.toMs);
  };
  for (const change of ordered) {
    gapsBefore(change.ms);
    change.clock.set(change.ms, change.value);
  }
  gapsBefore(Infinity);
}
