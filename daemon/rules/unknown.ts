// The one value the fast path of the rule language (fast.ts) gives when a value cannot be
// told: a field missing, a type stale, a value not of the kind asked for. The slow path
// (evaluate.ts) then says why.

/** What a fast closure returns when the value cannot be told (the slow path says why). */
export const UNKNOWN: unique symbol = Symbol('unknown');
