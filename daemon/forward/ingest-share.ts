import type { EventLoopUtilization } from 'node:perf_hooks';

// How much of the daemon's time a sink catching up may take: ingest comes first.

// When events are being recorded and the event loop (shared by ingest and forwarding) was
// busy at least BUSY_UTILIZATION of the time since the last batch, a sink catching up pauses
// PAUSE_FACTOR times as long as its last step (reading and sending the batch) took: it then
// takes at most ~1/20 of the loop (two sinks a tenth). With spare time on the loop, or with
// no ingest, it runs flat out.
const BUSY_UTILIZATION = 0.7;
const PAUSE_FACTOR = 19;
const PAUSE_MAX_MS = 1000;

/** A reading of the event loop's busy and idle time (perf_hooks' eventLoopUtilization). */
export type LoopSampler = (since?: EventLoopUtilization) => EventLoopUtilization;

/** Decides the pause after each full batch from the ingest and the loop's load since the previous one. */
export class IngestShare {
  private readonly sample: LoopSampler;
  private recorded = 0;
  private loop: EventLoopUtilization | undefined;

  constructor(sample: LoopSampler) {
    this.sample = sample;
  }

  /** The pause (ms) before the next batch, given the events recorded so far and how long the batch took. */
  pauseAfter(recorded: number, batchMs: number): number {
    const ingest = recorded !== this.recorded;
    this.recorded = recorded;
    const now = this.sample();
    const busy = this.loop ? this.sample(this.loop).utilization : 0;
    this.loop = now;
    if (!ingest || busy < BUSY_UTILIZATION) return 0;
    return Math.min(PAUSE_MAX_MS, Math.max(1, batchMs) * PAUSE_FACTOR);
  }
}
