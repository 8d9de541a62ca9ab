import { DateTime } from 'luxon';

// Time as the wire shows it, and the clock that everything but the entry files receives.

/**
 * Source of the current time in epoch milliseconds; injected so tests control it. `monotonic`
 * (ms from an arbitrary origin, never stepped by NTP or an operator): how much time passed,
 * whatever the wall clock did; a clock without it has only the wall clock to go by.
 */
export interface Clock {
  now(): number;
  monotonic?(): number;
}

/** The real clock; only entry files should construct it. */
export const systemClock: Clock = { now: () => Date.now(), monotonic: () => performance.now() };

/** The clock's monotonic time in ms, NaN when it has none (then ages go by the wall clock alone). */
export function monotonicNow(clock: Clock): number {
  return clock.monotonic ? clock.monotonic() : NaN;
}

/** The envelope `ts`: UTC ISO-8601 with milliseconds and a trailing `Z`. */
export function formatTs(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

const TS_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HAS_OFFSET = /T.*(Z|[+-]\d{2}(:?\d{2})?)$/i;

/**
 * A caller's timestamp in the envelope `ts` form, or why it cannot be one: it must be an
 * ISO-8601 date-time with `Z` or a UTC offset (a naive time says nothing about the instant)
 * and a real date. Fractions beyond milliseconds are cut, not rounded (as luxon reads them).
 */
export function normaliseTs(text: string): { ts: string } | { problem: string } {
  // already in the stored form: valid exactly when it formats back to itself (no 2026-02-30)
  if (TS_FORM.test(text) && formatTs(Date.parse(text) || 0) === text) return { ts: text };
  if (!HAS_OFFSET.test(text)) return { problem: 'must be an ISO-8601 date-time with Z or a UTC offset' };
  const dt = DateTime.fromISO(text, { setZone: true });
  if (!dt.isValid) return { problem: `is not a real date-time (${dt.invalidExplanation ?? dt.invalidReason})` };
  const ts = formatTs(dt.toMillis());
  if (!TS_FORM.test(ts)) return { problem: 'must lie between the years 0000 and 9999' };
  return { ts };
}
