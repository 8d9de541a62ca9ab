// The age of a reading, one rule for every output (GET /current freshness, X-Meridian-Age,
// /status, the stale/fresh events, /metrics): the larger of its age by `ts` on the daemon's
// clock, never below 0, and the time since the daemon received it on the monotonic clock.
// A clock stepped back then neither shows a negative age nor keeps a dead sensor fresh until
// the wall clock catches up with its last `ts` (docs/http-api.md, freshness).

/**
 * Age in whole ms at `now` (wall) and `nowMono` (monotonic) of a reading stamped `tsMs` and
 * received at `receivedMono`; a reading recovered at start-up (`receivedMono` NaN) counts as
 * received at `startMono`, the daemon's start. Undefined when `ts` is unreadable; by `ts`
 * alone when there is no monotonic time (NaN).
 */
export function readingAgeMs(tsMs: number, receivedMono: number, now: number, nowMono: number, startMono: number): number | undefined {
  if (Number.isNaN(tsMs)) return undefined;
  const byTs = Math.max(0, now - tsMs);
  const held = Math.floor(nowMono - (Number.isNaN(receivedMono) ? startMono : receivedMono));
  return held > byTs ? held : byTs;
}
