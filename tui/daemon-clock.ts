// The daemon's clock as seen from the console: the Date header of each poll (whole seconds)
// bounds the offset between the daemon's clock and the local one; the bounds narrow with
// every poll, so ages stay steady instead of jumping by the header's rounding.

/** What is known about `daemon time - local time`, in ms: lo <= offset < hi. */
export interface OffsetBounds {
  lo: number;
  hi: number;
}

/**
 * Narrow the bounds with one answer: its Date header (`serverDate`, whole seconds) was made
 * between `sentAt` and `receivedAt` (local ms). Bounds that no longer overlap (a clock was
 * stepped) start over from this answer.
 */
export function refineOffset(bounds: OffsetBounds | undefined, serverDate: number, sentAt: number, receivedAt: number): OffsetBounds {
  const fresh = { lo: serverDate - receivedAt, hi: serverDate + 1000 - sentAt };
  if (!bounds) return fresh;
  const lo = Math.max(bounds.lo, fresh.lo);
  const hi = Math.min(bounds.hi, fresh.hi);
  return lo < hi ? { lo, hi } : fresh;
}

/** The best estimate of the offset (middle of the bounds; 0 when nothing is known). */
export function offsetOf(bounds: OffsetBounds | undefined): number {
  return bounds ? Math.round((bounds.lo + bounds.hi) / 2) : 0;
}
