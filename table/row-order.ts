// The order of the table's rows: stale ones pinned on top, then by type, age or seq, and
// how rows kept between frames are put back in order after a few of them changed. Pure.
// It knows a row only by the fields it sorts on (rows.ts builds the rows and imports this).

/** The orders `s` cycles through. */
export type SortKey = 'type' | 'age' | 'seq';
export const SORT_KEYS: readonly SortKey[] = ['type', 'age', 'seq'];

/** A sort: its key, and whether `r` reversed it. */
export interface SortOrder {
  key: SortKey;
  reverse: boolean;
}

/** What a row must have to be put in order (a table row has these and more). */
export interface Orderable {
  /** The type in lower case. */
  key: string;
  type: string;
  envelope: { ts: string } | undefined;
  seq: number | undefined;
  stale: boolean;
}

/** The sort key after `key` (type -> age -> seq -> type). */
export function nextSort(key: SortKey): SortKey {
  return SORT_KEYS[(SORT_KEYS.indexOf(key) + 1) % SORT_KEYS.length]!;
}

function byType(a: Orderable, b: Orderable): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.type < b.type ? -1 : a.type > b.type ? 1 : 0;
}

// age order is recording order: compare the ts themselves (ISO UTC, so as text), not the
// ages, which are clamped at 0 for readings newer than the estimated daemon clock; a
// missing reading is the oldest
function byKey(key: SortKey, a: Orderable, b: Orderable): number {
  if (key === 'age') {
    const ta = a.envelope?.ts ?? '';
    const tb = b.envelope?.ts ?? '';
    return ta < tb ? 1 : ta > tb ? -1 : 0;
  }
  if (key === 'seq') return (b.seq ?? -1) - (a.seq ?? -1);
  return 0;
}

/** sortRows on the array itself. */
export function sortInPlace<T extends Orderable>(rows: T[], order: SortOrder): T[] {
  return rows.sort(comparator(order));
}

function comparator(order: SortOrder): (a: Orderable, b: Orderable) => number {
  const sign = order.reverse ? -1 : 1;
  return (a, b) => Number(b.stale) - Number(a.stale) || sign * (byKey(order.key, a, b) || byType(a, b));
}

/**
 * Sorted rows sorted again after `moved` of them changed (a new reading, staleness turned):
 * those are taken out and put back in their place, in place. Sorting the whole array would
 * allocate a scratch array as large as it (100,000 rows: a large object per frame); a few
 * moved rows cost a pass and a binary search each. Many moved rows: a whole sort.
 */
export function placeAgain<T extends Orderable>(rows: T[], moved: ReadonlySet<T>, order: SortOrder): void {
  if (moved.size === 0) return;
  if (moved.size > 256) {
    sortInPlace(rows, order);
    return;
  }
  let kept = 0;
  for (let i = 0; i < rows.length; i++) if (!moved.has(rows[i]!)) rows[kept++] = rows[i]!;
  rows.length = kept;
  const compare = comparator(order);
  for (const row of moved) {
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(rows[mid]!, row) <= 0) lo = mid + 1; else hi = mid;
    }
    rows.splice(lo, 0, row);
  }
}
