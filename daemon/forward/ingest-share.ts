// How much of the daemon's time a sink catching up may take: ingest comes first.

// While events pour in (more than BUSY_EVENTS_PER_S), a sink catching up pauses this many
// times as long as its last batch took before the next one, so it takes at most ~1/10 of
// the daemon's time from ingest (the event loop is shared). At an observatory's usual rates
// (tens of events a second) and with no ingest it runs flat out.
const BUSY_EVENTS_PER_S = 500;
const BUSY_PAUSE_FACTOR = 9;
const BUSY_PAUSE_MAX_MS = 1000;

/** Decides the pause after each full batch from the ingest rate since the previous one. */
export class IngestShare {
  private seen = { count: 0, at: 0 };

  /** The pause (ms) before the next batch, given the events recorded so far, now, and how long the batch took. */
  pauseAfter(recorded: number, nowMs: number, batchMs: number): number {
    const rate = (recorded - this.seen.count) / Math.max(1, nowMs - this.seen.at) * 1000;
    this.seen = { count: recorded, at: nowMs };
    if (rate < BUSY_EVENTS_PER_S) return 0;
    return Math.min(BUSY_PAUSE_MAX_MS, Math.max(1, batchMs) * BUSY_PAUSE_FACTOR);
  }
}
