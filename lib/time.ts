// Time as the wire shows it, and the clock that everything but the entry files receives.

/** Source of the current time in epoch milliseconds; injected so tests control it. */
export interface Clock {
  now(): number;
}

/** The real clock; only entry files should construct it. */
export const systemClock: Clock = { now: () => Date.now() };

/** The envelope `ts`: UTC ISO-8601 with milliseconds and a trailing `Z`. */
export function formatTs(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
