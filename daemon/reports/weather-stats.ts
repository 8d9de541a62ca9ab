import { forEachMember } from '../../lib/json-text.js';
import { numberAt } from '../../lib/number-text.js';
import { forEachTopNumber } from './flat-numbers.js';

// min/mean/max of each numeric field of the weather readings of a night, read from the data
// text as recorded: min and max keep their spelling (Exact), the mean is computed. A field is
// a top-level member of `data` whose value is a JSON number (finite); other values are skipped;
// a key given twice counts once, with its last value (as JSON.parse reads it). A night holds
// hundreds of thousands of readings: the fields of the last reading are remembered by position,
// so a reading laid out like the one before costs no key copies and no map lookups.

/** The slices of the night a field's series is cut into. */
export const SERIES_SLICES = 96;

/** A number as recorded: its value, and its text as the caller spelled it. */
export interface SpelledNumber {
  value: number;
  text: string;
}

/** One field's running totals. */
export interface FieldStats {
  key: string;
  count: number;
  sum: number;
  min: SpelledNumber;
  max: SpelledNumber;
  /** Per slice: the sum and the count of its values. */
  sliceSums: Float64Array;
  sliceCounts: Uint32Array;
  /** The reading that last gave a value (a second value in one reading replaces the first). */
  reading: number;
  /** `sum` and `sliceSums` hold the values times 2^-k: scaled once a sum would pass a double's range (0: never). */
  k: number;
}

/** A mean of a field's sums (`sum` or a slice's): scaled back, finite whenever the true mean is. */
export function meanOf(f: FieldStats, sum: number, n: number): number {
  return f.k ? (sum / n) * 2 ** f.k : sum / n;
}


/** The fields of the weather readings of one span, fed one data text at a time. */
export class WeatherStats {
  readonly fields = new Map<string, FieldStats>();
  private readonly fromMs: number;
  private readonly sliceMs: number;
  /** The fields of the last reading, by member position. */
  private layout: FieldStats[] = [];
  // the reading being added: its text, number, and the values found so far
  private text = '';
  private reading = 0;
  private position = 0;
  private found: { field: FieldStats; value: number; start: number; end: number }[] = [];
  private foundCount = 0;
  private readonly visit = (keyStart: number, keyEnd: number, start: number, end: number) => this.take(keyStart, keyEnd, start, end);

  /** Series slices divide [fromMs, toMs). */
  constructor(fromMs: number, toMs: number) {
    this.fromMs = fromMs;
    this.sliceMs = Math.max(1, (toMs - fromMs) / SERIES_SLICES);
  }

  /** Add the numeric members of one reading's `data` text, taken at `ms`; false (nothing added) when the text is not one JSON value. */
  add(dataText: string, ms: number): boolean {
    this.text = dataText;
    this.reading++;
    this.position = 0;
    this.foundCount = 0;
    if (!forEachTopNumber(dataText, this.visit)) {
      this.reading++;
      this.foundCount = 0;
      try {
        forEachMember(dataText, (key, span) => {
          const c = dataText.charCodeAt(span.start);
          if (span.depth === 0 && (c === 45 || (c >= 48 && c <= 57))) this.takeKey(this.fieldOf(key), span.start, span.end);
        });
      } catch {
        return false;
      }
    }
    const slice = this.sliceOf(ms);
    for (let i = 0; i < this.foundCount; i++) {
      const { field, value, start, end } = this.found[i]!;
      addValue(field, value, dataText, start, end, slice);
    }
    return true;
  }

  /** Add one rollup bucket's summary of field `key` (weather-tiers.ts), buckets in time order: min and max as spelled, ties keep the earlier. */
  addBucket(key: string, startMs: number, b: { min: string; max: string; count: number; mean: number }): void {
    const f = this.fieldOf(key);
    const min = Number(b.min);
    const max = Number(b.max);
    if (f.count === 0 || min < f.min.value) f.min = { value: min, text: b.min };
    if (f.count === 0 || max > f.max.value) f.max = { value: max, text: b.max };
    const slice = this.sliceOf(startMs);
    f.count += b.count;
    addScaled(f, b.mean, b.count, slice);
    f.sliceCounts[slice] += b.count;
  }

  /** The slice `ms` falls in (clamped to the span). */
  sliceOf(ms: number): number {
    return Math.min(SERIES_SLICES - 1, Math.max(0, Math.floor((ms - this.fromMs) / this.sliceMs)));
  }

  /** The length of a slice, in ms. */
  get sliceLength(): number {
    return this.sliceMs;
  }

  /** The start of a slice, in ms. */
  sliceStart(slice: number): number {
    return this.fromMs + Math.round(slice * this.sliceMs);
  }

  /** One numeric member of the flat scan: its field found by position when the layout repeats. */
  private take(keyStart: number, keyEnd: number, start: number, end: number): void {
    const j = this.position++;
    const known = this.layout[j];
    const text = this.text;
    let field: FieldStats;
    if (known && keyEnd - keyStart === known.key.length && text.startsWith(known.key, keyStart)) field = known;
    else {
      field = this.fieldOf(text.slice(keyStart, keyEnd));
      this.layout[j] = field;
    }
    this.takeKey(field, start, end);
  }

  /** Note a value of `field` in the reading being added (a second one replaces the first). */
  private takeKey(field: FieldStats, start: number, end: number): void {
    const value = numberAt(this.text, start, end);
    if (!Number.isFinite(value)) return;
    let at = this.foundCount;
    if (field.reading === this.reading) at = this.found.findIndex((f, i) => i < this.foundCount && f.field === field);
    else this.foundCount++;
    field.reading = this.reading;
    const slot = this.found[at];
    if (slot) {
      slot.field = field;
      slot.value = value;
      slot.start = start;
      slot.end = end;
    } else this.found[at] = { field, value, start, end };
  }

  private fieldOf(key: string): FieldStats {
    let f = this.fields.get(key);
    if (!f) {
      const none = { value: NaN, text: '' };
      f = { key, count: 0, sum: 0, min: none, max: none, sliceSums: new Float64Array(SERIES_SLICES), sliceCounts: new Uint32Array(SERIES_SLICES), reading: 0, k: 0 };
      this.fields.set(key, f);
    }
    return f;
  }
}

/** Add one value to a field; its text is copied only for a new min or max (a reading's spelling, kept: Exact). */
function addValue(f: FieldStats, value: number, text: string, start: number, end: number, slice: number): void {
  if (f.count === 0 || value < f.min.value) f.min = { value, text: text.slice(start, end) };
  if (f.count === 0 || value > f.max.value) f.max = { value, text: text.slice(start, end) };
  f.count++;
  addScaled(f, value, 1, slice);
  f.sliceCounts[slice]++;
}

/** Add value x n to a field's sum and a slice's, scaling both (and every slice) when either would pass a double's range. */
function addScaled(f: FieldStats, value: number, n: number, slice: number): void {
  const term = f.k ? (value * 2 ** -f.k) * n : value * n;
  const sum = f.sum + term;
  const sliceSum = f.sliceSums[slice]! + term;
  if (Number.isFinite(sum) && Number.isFinite(sliceSum)) {
    f.sum = sum;
    f.sliceSums[slice] = sliceSum;
    return;
  }
  const scale = 2 ** -SCALE_STEP;
  f.sum *= scale;
  for (let i = 0; i < f.sliceSums.length; i++) f.sliceSums[i]! *= scale;
  f.k += SCALE_STEP;
  addScaled(f, value, n, slice);
}

const SCALE_STEP = 128;

