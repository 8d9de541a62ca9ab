import type { EventLoopUtilization } from 'node:perf_hooks';

// How much of the daemon's time a sink catching up may take: ingest comes first.

// Ingest is heavy when events were recorded since the last batch at BUSY_RATE a second or
// more, or when any were and the event loop (shared by ingest and forwarding) was busy at least
// BUSY_UTILIZATION of that time. Then a sink catching up pauses PAUSE_FACTOR times as long as
// its last step (reading and sending the batch) took, up to PAUSE_MAX_MS: it takes at most
// ~1/20 of the loop (two sinks a tenth). A PostgreSQL batch can take 100-200 ms to insert: a
// pause capped at 1 s let such a sink take a tenth of the machine by itself. Otherwise (a
// trickle of events on a loop with time to spare, or no ingest) it runs flat out. Both signals are needed: with --fsync the requests of a busy ingest wait
// on the disk, so the loop shows time to spare while every ms a sink holds it delays them;
// on a crowded machine the rate stays low while the loop is full.
const BUSY_RATE = 100;
const BUSY_UTILIZATION = 0.7;
const PAUSE_FACTOR = 19;
const PAUSE_MAX_MS = 5000;

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
    const events = recorded - this.recorded;
    this.recorded = recorded;
    const now = this.sample();
    const since = this.loop ? this.sample(this.loop) : undefined;
    this.loop = now;
    if (events <= 0 || since === undefined) return 0;
    const elapsedMs = since.idle + since.active;
    const heavy = elapsedMs > 0 && (events * 1000) / elapsedMs >= BUSY_RATE;
    if (!heavy && since.utilization < BUSY_UTILIZATION) return 0;
    return Math.min(PAUSE_MAX_MS, Math.max(1, batchMs) * PAUSE_FACTOR);
  }
}
