import type { CurrentPoll, TelemetryClient } from '../client/client.js';
import { TelemetryClientError } from '../client/errors.js';
import type { Clock } from '../lib/time.js';
import type { ReadyAnswer, RunRecord, SinkStatus } from '../lib/wire.js';

// The poll loop: one cycle (GET /ready, GET /run while a run is active, GET /status for the
// forwarding sinks, conditional GET /current) at a time; the next is scheduled only after
// the previous settled.

/** What one poll cycle found (local clock times around the /current request). */
export type PollOutcome =
  | { ok: true; ready: ReadyAnswer; run: RunRecord | undefined; poll: CurrentPoll; sentAt: number; receivedAt: number;
    /** The forwarding sinks (undefined when /status did not answer them). */
    sinks?: SinkStatus[] }
  | { ok: false; error: unknown; receivedAt: number };

/** Run one poll cycle; never rejects (a failure is an outcome). */
export async function pollOnce(client: TelemetryClient, clock: Clock, etag: string | undefined): Promise<PollOutcome> {
  try {
    const ready = await client.ready();
    const run = ready.run_active ? await client.getRun().catch(noRunAsUndefined) : undefined;
    // the sinks are extra: a /status that fails leaves the console working
    const sinks = await client.status().then((s) => s.forward, () => undefined);
    const sentAt = clock.now();
    const poll = await client.pollCurrent(etag);
    return { ok: true, ready, run, poll, sentAt, receivedAt: clock.now(), sinks };
  } catch (error) {
    return { ok: false, error, receivedAt: clock.now() };
  }
}

function noRunAsUndefined(error: unknown): undefined {
  if (error instanceof TelemetryClientError && error.statusCode === 404) return undefined; // stopped in between
  throw error;
}

/** A running poll loop. */
export interface Poller {
  pause(): void;
  /** Poll now (unless a poll is in flight), then every interval again. */
  resume(): void;
  /** Stop for good: clears the timer; an answer still in flight is dropped. */
  stop(): void;
}

/** Start polling every `intervalMs` (the first poll at once). */
export function startPoller(options: {
  client: TelemetryClient; clock: Clock; intervalMs: number;
  etag: () => string | undefined; onOutcome: (outcome: PollOutcome) => void;
}): Poller {
  let timer: NodeJS.Timeout | undefined;
  let inFlight = false;
  let paused = false;
  let stopped = false;
  const schedule = (ms: number): void => {
    if (!stopped && !paused && !inFlight && !timer) timer = setTimeout(cycle, ms);
  };
  async function cycle(): Promise<void> {
    timer = undefined;
    inFlight = true;
    const outcome = await pollOnce(options.client, options.clock, options.etag());
    inFlight = false;
    if (stopped) return;
    options.onOutcome(outcome);
    schedule(options.intervalMs);
  }
  schedule(0);
  return {
    pause: () => { paused = true; clearTimeout(timer); timer = undefined; },
    resume: () => { paused = false; schedule(0); },
    stop: () => { stopped = true; clearTimeout(timer); timer = undefined; },
  };
}
