// The age of a reading, one rule for every output (GET /current freshness, X-Meridian-Age,
// /status, the stale/fresh events, /metrics): the larger of its age by `ts` on the daemon's
// clock, never below 0, and the time since the daemon received it on the monotonic clock.
// A clock stepped back then neither shows a negative age nor keeps a dead sensor fresh until
// the wall clock catches up with its last `ts` (docs/http-api.md, freshness).

/** When the daemon started: on the monotonic clock and on the wall clock (ms). */
export interface DaemonStart {
  mono: number;
  wall: number;
}

/**
 * Age in whole ms at `now` (wall) and `nowMono` (monotonic) of a reading stamped `tsMs` and
 * received at `receivedMono`. A reading recovered at start-up (`receivedMono` NaN) has been
 * held since its receipt `receivedAt` (wall ms, kept in the snapshot) when that is known and
 * not ahead of `now`, and at least since the daemon's `start`. One whose receipt is not known
 * and whose ts was ahead of the clock at the start has an age that cannot be judged:
 * undefined (stale wherever a limit applies), so that a dead sensor whose ts runs ahead never
 * reads fresh again after a restart. Undefined too when `ts` is unreadable; by `ts` alone
 * when there is no monotonic time (NaN).
 */
export function readingAgeMs(tsMs: number, receivedMono: number, now: number, nowMono: number, start: DaemonStart, receivedAt = NaN): number | undefined {
  if (Number.isNaN(tsMs)) return undefined;
  const byTs = Math.max(0, now - tsMs);
  let held: number;
  if (!Number.isNaN(receivedMono)) {
    held = Math.floor(nowMono - receivedMono);
  } else {
    held = Math.floor(nowMono - start.mono);
    if (receivedAt <= now) held = Number.isNaN(held) ? now - receivedAt : Math.max(held, now - receivedAt);
    else if (tsMs > start.wall) return undefined;
  }
  return held > byTs ? held : byTs;
}
