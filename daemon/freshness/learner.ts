// Limits learned from each type's own cadence, for the types no `--max-age` rule and no
// reading's `max_age_s` limits (docs/configuration.md#max-age): once a type has been seen
// LEARN_AFTER intervals apart in this daemon's life, its limit is
// max(LEARNED_FLOOR_S, LEARN_FACTOR x the median of its last LEARN_WINDOW intervals), in tenths
// of a second. Intervals are between receipts on the monotonic clock; readings received at the
// same instant (one batch) are one sighting. The work per recorded reading is a map look-up,
// a store into a ring and one move of the sorted intervals; the median is read when a limit is asked for.
// A restart hands the limits of the daemon's last life (limits-file.ts) to restore(): each is
// the type's limit until the type is learned again. A required safety input recovered at
// start-up whose limit is not known (the file lost or damaged, no limit learned when it was
// written) is judged by LEARNED_FLOOR_S until it is posted again (fail-safe: a stopped input
// turns stale, the verdict unsafe).

/** Intervals needed before a limit is learned. */
export const LEARN_AFTER = 5;
/** Intervals the median is taken over (the newest). */
export const LEARN_WINDOW = 20;
/** The limit is this many typical intervals. */
export const LEARN_FACTOR = 5;
/** No learned limit is shorter (seconds). */
export const LEARNED_FLOOR_S = 5;

interface Cadence {
  /** The last sighting on the monotonic clock (ms). */
  last: number;
  /** The newest intervals (ms), a ring. */
  readonly intervals: Float64Array;
  /** How many intervals were seen (all of them; the ring holds the newest LEARN_WINDOW). */
  seen: number;
  /** The limit for the intervals seen (seconds), null when not yet taken. */
  limit: number | null;
  /** The ring's intervals sorted, in its first min(seen, LEARN_WINDOW) places: kept so as each interval comes (the median is read from it). */
  readonly sorted: Float64Array;
}

/** Each type's cadence in this daemon's life, and the limit learned from it. */
export class CadenceLearner {
  private readonly types = new Map<string, Cadence>();
  /** The limits of the last life, until learned again; `floor`: none known, LEARNED_FLOOR_S until posted again. */
  private readonly restored = new Map<string, number | 'floor'>();

  /** The limits known from the last life (`known`), and the recovered types with none known (judged by the floor). */
  restore(known: ReadonlyMap<string, number>, recovered: readonly string[]): void {
    for (const [type, limit] of known) this.restored.set(type, limit);
    for (const type of recovered) if (!known.has(type)) this.restored.set(type, 'floor');
  }

  /** A sighting after start-up: a type judged by the floor for want of a known limit is not any more. */
  private seenAgain(type: string): void {
    if (this.restored.get(type) === 'floor') this.restored.delete(type);
  }

  /** A reading of `type` became current at `mono` (the monotonic clock, ms). */
  seen(type: string, mono: number): void {
    if (Number.isNaN(mono)) return;
    const cadence = this.types.get(type);
    if (!cadence) {
      this.types.set(type, { last: mono, intervals: new Float64Array(LEARN_WINDOW), seen: 0, limit: null, sorted: new Float64Array(LEARN_WINDOW) });
      return;
    }
    const interval = mono - cadence.last;
    if (!(interval > 0)) return;
    this.seenAgain(type);
    cadence.last = mono;
    const slot = cadence.seen % LEARN_WINDOW;
    let n = Math.min(cadence.seen, LEARN_WINDOW);
    // the interval leaving the ring leaves the sorted ones, the new one is put in its place among them
    if (cadence.seen >= LEARN_WINDOW) n = removeSorted(cadence.sorted, n, cadence.intervals[slot]!);
    insertSorted(cadence.sorted, n, interval);
    cadence.intervals[slot] = interval;
    cadence.seen++;
    cadence.limit = null;
  }

  /** The learned limit of `type` in seconds; undefined until it was seen LEARN_AFTER intervals apart. */
  limitOf(type: string): number | undefined {
    const cadence = this.types.get(type);
    if (!cadence || cadence.seen < LEARN_AFTER) {
      const restored = this.restored.get(type);
      return restored === 'floor' ? LEARNED_FLOOR_S : restored;
    }
    cadence.limit ??= learnedLimit(cadence.sorted, Math.min(cadence.seen, LEARN_WINDOW));
    return cadence.limit;
  }

  /** Whether any type has a learned limit (or one restored). */
  any(): boolean {
    for (const cadence of this.types.values()) if (cadence.seen >= LEARN_AFTER) return true;
    return this.restored.size > 0;
  }

  /**
   * Each type's limit to keep for the next life. A type without one (seen fewer than
   * LEARN_AFTER intervals apart, or judged by the floor) is left out: after a restart it is
   * judged by the floor until posted again, so a limit learned after the last write is never
   * taken for none.
   */
  known(): Map<string, number> {
    const known = new Map<string, number>();
    for (const [type, limit] of this.restored) if (limit !== 'floor') known.set(type, limit);
    for (const type of this.types.keys()) {
      if (this.restored.get(type) === 'floor') continue;
      const limit = this.limitOf(type);
      if (limit !== undefined) known.set(type, limit);
    }
    return known;
  }
}

/** max(floor, factor x median) in tenths of a second, from the first `n` of `sorted` (intervals in ms, ascending). */
export function learnedLimit(sorted: Float64Array, n: number): number {
  const middle = n >> 1;
  const median = n % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return Math.max(LEARNED_FLOOR_S, Math.round((LEARN_FACTOR * median) / 100) / 10);
}

// the sorted intervals are kept so as they come (a sort of the ring after each reading of a type
// the rules read showed in the ingest profile): one removal and one insertion, at most LEARN_WINDOW moves

/** Remove one `value` from the first `n` of `sorted`; the count left. */
function removeSorted(sorted: Float64Array, n: number, value: number): number {
  let i = 0;
  while (i < n && sorted[i] !== value) i++;
  for (; i < n - 1; i++) sorted[i] = sorted[i + 1]!;
  return n - 1;
}

/** Put `value` among the first `n` of `sorted`, in order. */
function insertSorted(sorted: Float64Array, n: number, value: number): void {
  let j = n - 1;
  for (; j >= 0 && sorted[j]! > value; j--) sorted[j + 1] = sorted[j]!;
  sorted[j + 1] = value;
}
