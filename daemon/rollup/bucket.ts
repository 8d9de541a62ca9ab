// One field's summary within one bucket, built reading by reading: first, last, min, max as
// recorded (their text), count, the mean (a Neumaier sum), and the time-weighted mean and the
// time not covered by a fresh reading (each reading holds its value until the next reading of
// the field or until it is past its max age, whichever comes first: docs/rollups.md).

/** A compensated (Neumaier) sum: exact to the last bits over millions of terms. */
export interface Sum {
  s: number;
  c: number;
}

/** Add `x` to a Neumaier sum in place. */
export function addTo(sum: Sum, x: number): void {
  const t = sum.s + x;
  sum.c += Math.abs(sum.s) >= Math.abs(x) ? (sum.s - t) + x : (x - t) + sum.s;
  sum.s = t;
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
    addTo(acc.tw, hold.value * ms);
    acc.covered += ms;
  }
  if (to > hold.counted) hold.counted = to;
}

/** The record of an accumulator for a bucket `lengthMs` long (or as far as it is answered). */
export function recordOf(acc: FieldAcc, lengthMs: number): FieldRecord {
  const mean = (acc.sum.s + acc.sum.c) / acc.count;
  const twmean = acc.covered > 0 ? (acc.tw.s + acc.tw.c) / acc.covered : null;
  return [acc.first, acc.last, acc.min, acc.max, acc.count, mean, twmean, Math.max(0, lengthMs - acc.covered) / 1000];
}
