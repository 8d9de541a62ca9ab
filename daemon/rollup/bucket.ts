// One field's summary within one bucket, built reading by reading: first, last, min, max as
// recorded (their text), count, the mean (a Neumaier sum), and the time-weighted mean and the
// time not covered by a fresh reading (each reading holds its value until the next reading of
// the field or until it is past its max age, whichever comes first: docs/rollups.md).

/**
 * A compensated (Neumaier) sum: exact to the last bits over millions of terms. `k` (absent: 0)
 * scales it: the sum holds the terms times 2^-k, taken once a term or the sum would pass a
 * double's range (readings near 1.8e308), so a finite mean stays finite; ordinary sums never scale.
 */
export interface Sum {
  s: number;
  c: number;
  k?: number;
}

/** The scale step (a power of two: exact, and 2^53 terms of 1.8e308 x 25 h in ms stay finite). */
const SCALE_STEP = 128;

/** Add `x` (times `factor`) to a Neumaier sum in place, scaling it when the sum would leave a double's range. */
export function addTo(sum: Sum, x: number, factor = 1): void {
  const term = sum.k ? (x * 2 ** -sum.k) * factor : x * factor;
  const t = sum.s + term;
  if (!Number.isFinite(t) && Number.isFinite(x) && Number.isFinite(factor)) {
    rescale(sum);
    addTo(sum, x, factor);
    return;
  }
  sum.c += Math.abs(sum.s) >= Math.abs(term) ? (sum.s - t) + term : (term - t) + sum.s;
  sum.s = t;
}

/** The value of a sum divided by `n` (scaled back: finite whenever the true quotient is). */
export function quotient(sum: Sum, n: number): number {
  const q = (sum.s + sum.c) / n;
  return sum.k ? q * 2 ** sum.k : q;
}

function rescale(sum: Sum): void {
  const f = 2 ** -SCALE_STEP;
  sum.s *= f;
  sum.c *= f;
  sum.k = (sum.k ?? 0) + SCALE_STEP;
}

/** A field's accumulator in the open bucket. */
export interface FieldAcc {
  first: string;
  last: string;
  min: string;
  minV: number;
  max: string;
  maxV: number;
  count: number;
  sum: Sum;
  /** The integral of the held value over the covered time (value x ms). */
  tw: Sum;
  /** Covered ms so far. */
  covered: number;
}

/** A field's last reading and how far into the open bucket its hold has been counted. */
export interface FieldHold {
  value: number;
  /** The reading's ts (ms). */
  at: number;
  /** Until when it is fresh (ms; Infinity: no max age). */
  until: number;
  /** The hold is counted in the open bucket up to here (ms). */
  counted: number;
}

/** The stored summary of a field in a closed bucket: [first, last, min, max, count, mean, twmean, gap_s]. */
export type FieldRecord = [string, string, string, string, number, number, number | null, number];

/** A new accumulator holding one reading. */
export function newAcc(text: string, value: number): FieldAcc {
  return { first: text, last: text, min: text, minV: value, max: text, maxV: value, count: 1, sum: { s: value, c: 0 }, tw: { s: 0, c: 0 }, covered: 0 };
}

/** Add a reading to an accumulator (ties of min and max keep the earlier reading's spelling). */
export function addReading(acc: FieldAcc, text: string, value: number): void {
  acc.last = text;
  if (value < acc.minV) { acc.min = text; acc.minV = value; }
  if (value > acc.maxV) { acc.max = text; acc.maxV = value; }
  acc.count++;
  addTo(acc.sum, value);
}

/** Count the hold of `hold`'s value up to `to` (clamped to its freshness) into `acc`. */
export function countHold(acc: FieldAcc, hold: FieldHold, to: number): void {
  const end = Math.min(to, hold.until);
  if (end > hold.counted) {
    const ms = end - hold.counted;
    addTo(acc.tw, hold.value, ms);
    acc.covered += ms;
  }
  if (to > hold.counted) hold.counted = to;
}

/** The record of an accumulator for a bucket `lengthMs` long (or as far as it is answered). */
export function recordOf(acc: FieldAcc, lengthMs: number): FieldRecord {
  const mean = quotient(acc.sum, acc.count);
  const twmean = acc.covered > 0 ? quotient(acc.tw, acc.covered) : null;
  return [acc.first, acc.last, acc.min, acc.max, acc.count, mean, twmean, Math.max(0, lengthMs - acc.covered) / 1000];
}
