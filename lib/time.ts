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
// the spellings taken (docs/http-api.md): a calendar date, `T`, hh:mm[:ss[.fraction]], and Z or
// an offset +hh:mm, +hhmm or +hh; no week or ordinal dates, no basic or reduced forms
const TS_SPELLING = /^\d{4}-\d{2}-\d{2}T(\d{2}):\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?)$/i;

/**
 * A caller's timestamp in the envelope `ts` form, or why it cannot be one: it must be an
 * ISO-8601 calendar date-time with `Z` or a UTC offset (a naive time says nothing about the
 * instant), a real date and a possible offset (at most 23:59). Fractions beyond
 * milliseconds are cut, not rounded (as luxon reads them).
 */
export function normaliseTs(text: string): { ts: string } | { problem: string } {
  // already in the stored form: valid exactly when it formats back to itself (no 2026-02-30)
  if (TS_FORM.test(text) && formatTs(Date.parse(text) || 0) === text) return { ts: text };
  if (!HAS_OFFSET.test(text)) return { problem: 'must be an ISO-8601 date-time with Z or a UTC offset' };
  const spelled = TS_SPELLING.exec(text);
  if (!spelled) return { problem: 'must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00' };
  const [, hour, offsetHours, offsetMinutes] = spelled;
  if (hour === '24') return { problem: 'is not a real date-time (hour 24 is not taken; write 00 of the next day)' };
  if (Number(offsetHours ?? 0) > 23 || Number(offsetMinutes ?? 0) > 59) {
    return { problem: 'has an impossible UTC offset (at most 23 hours and 59 minutes either way)' };
  }
  const dt = DateTime.fromISO(text, { setZone: true });
  if (!dt.isValid) return { problem: `is not a real date-time (${dt.invalidExplanation ?? dt.invalidReason})` };
  const ts = formatTs(dt.toMillis());
  // the year as spelled has four digits: only its offset can carry it out of range in UTC
  if (!TS_FORM.test(ts)) return { problem: `falls in the year ${dt.toUTC().year} in UTC (the stored ts is UTC), outside 0000 to 9999` };
  return { ts };
}
