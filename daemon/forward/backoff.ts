// How long a sink waits before it tries a batch again.

/** The bounds of the retry delay. */
export interface RetryBounds {
  minMs: number;
  maxMs: number;
}

/**
 * Capped exponential backoff with full jitter: a delay drawn between `minMs` and
 * min(maxMs, minMs * 2^(attempt-1)), so units that lost the same peer do not retry in step.
 * `random` is in [0, 1) (injected so tests are exact).
 */
export function retryDelay(attempt: number, bounds: RetryBounds, random: () => number): number {
  const ceiling = Math.min(bounds.maxMs, bounds.minMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(bounds.minMs + (ceiling - bounds.minMs) * random());
}
