import { forEachMember } from '../../lib/json-text.js';

// min/mean/max of each numeric field of the weather readings of a night, read from the data
// text as recorded: min and max keep their spelling (Exact), the mean is computed. A field is
// a top-level member of `data` whose value is a JSON number (finite); other values are skipped.

/** The slices of the night a field's series is cut into. */
export const SERIES_SLICES = 96;

/** A number as recorded: its value, and its text as the caller spelled it. */
export interface SpelledNumber {
  value: number;
  text: string;
}

/** One field's running totals. */
export interface FieldStats {
  count: number;
  sum: number;
  min: SpelledNumber;
  max: SpelledNumber;
  /** Per slice: [sum, count]. */
  slices: Map<number, [number, number]>;
}

/** The fields of the weather readings of one span, fed one data text at a time. */
export class WeatherStats {
  readonly fields = new Map<string, FieldStats>();
  private readonly fromMs: number;
  private readonly sliceMs: number;

  /** Series slices divide [fromMs, toMs). */
  constructor(fromMs: number, toMs: number) {
    this.fromMs = fromMs;
    this.sliceMs = Math.max(1, (toMs - fromMs) / SERIES_SLICES);
  }

  /** Add the numeric members of one reading's `data` text, taken at `ms`. */
  add(dataText: string, ms: number): void {
    const slice = Math.min(SERIES_SLICES - 1, Math.max(0, Math.floor((ms - this.fromMs) / this.sliceMs)));
    try {
      forEachMember(dataText, (key, span) => {
        if (span.depth !== 0) return;
        const c = dataText.charCodeAt(span.start);
        if (c !== 45 && (c < 48 || c > 57)) return; // not a number
        const text = dataText.slice(span.start, span.end);
        const value = Number(text);
        if (Number.isFinite(value)) this.addValue(key, { value, text }, slice);
      });
    } catch { /* data that is not JSON is no reading to count (the daemon recorded JSON only) */ }
  }

  /** The start of a slice, in ms. */
  sliceStart(slice: number): number {
    return this.fromMs + Math.round(slice * this.sliceMs);
  }

  private addValue(key: string, n: SpelledNumber, slice: number): void {
    let f = this.fields.get(key);
    if (!f) {
      f = { count: 0, sum: 0, min: n, max: n, slices: new Map() };
      this.fields.set(key, f);
    }
    f.count++;
    f.sum += n.value;
    if (n.value < f.min.value) f.min = n;
    if (n.value > f.max.value) f.max = n;
    const s = f.slices.get(slice);
    if (s) {
      s[0] += n.value;
      s[1]++;
    } else f.slices.set(slice, [n.value, 1]);
  }
}
