import { addReading, countHold, newAcc, recordOf, type FieldAcc, type FieldHold, type FieldRecord } from './bucket.js';
import type { NumericField } from './fields.js';
import { bucketOf, type Span, type TierName } from './tiers.js';

// One type's rollup in one tier: the open bucket's accumulators and each field's last
// reading; a reading past the open bucket closes it (its line is handed to `emit`).

/** A closed bucket as stored: start and end (ms) and its fields' records. */
export interface BucketRecord {
  s: number;
  e: number;
  f: Record<string, FieldRecord>;
}

/** What a series is saved as in the checkpoint (Infinity written as null). */
export interface SeriesState {
  open: Span | null;
  accs: [string, FieldAcc][];
  holds: [string, Omit<FieldHold, 'until'> & { until: number | null }][];
}

/** One type's buckets of one tier, fed reading by reading in ts order. */
export class Series {
  private open: Span | undefined;
  private readonly accs = new Map<string, FieldAcc>();
  private readonly holds = new Map<string, FieldHold>();

  constructor(readonly tier: TierName, private readonly zone: string, state?: SeriesState) {
    if (!state) return;
    this.open = state.open ?? undefined;
    for (const [name, acc] of state.accs) this.accs.set(name, acc);
    for (const [name, hold] of state.holds) this.holds.set(name, { ...hold, until: hold.until ?? Infinity });
  }

  /** Fold a reading at `at` (ms, never before the last one folded) held fresh for `holdMs`. */
  fold(at: number, fields: readonly NumericField[], holdMs: number, emit: (record: BucketRecord) => void): void {
    if (this.open === undefined || at >= this.open.end) {
      if (this.open !== undefined && this.accs.size > 0) emit(this.close(this.open));
      this.open = bucketOf(this.tier, at, this.zone);
      this.accs.clear();
      for (const hold of this.holds.values()) hold.counted = this.open.start;
    }
    for (const { name, text, value } of fields) {
      const hold = this.holds.get(name);
      let acc = this.accs.get(name);
      if (acc === undefined) {
        acc = newAcc(text, value);
        this.accs.set(name, acc);
        if (hold) countHold(acc, hold, at);
      } else {
        if (hold) countHold(acc, hold, at);
        addReading(acc, text, value);
      }
      if (hold) {
        hold.value = value; hold.at = at; hold.until = at + holdMs; hold.counted = at;
      } else {
        this.holds.set(name, { value, at, until: at + holdMs, counted: at });
      }
    }
  }

  /** The open bucket as answered now: its holds counted up to `now` (never past its end, never before its last reading). */
  openRecord(now: number): BucketRecord | undefined {
    if (this.open === undefined || this.accs.size === 0) return undefined;
    let last = this.open.start;
    for (const name of this.accs.keys()) last = Math.max(last, this.holds.get(name)!.at);
    const to = Math.min(this.open.end, Math.max(now, last));
    const f: Record<string, FieldRecord> = {};
    for (const [name, acc] of this.accs) {
      const copy: FieldAcc = { ...acc, tw: { ...acc.tw } };
      countHold(copy, { ...this.holds.get(name)! }, to);
      f[name] = recordOf(copy, to - this.open.start);
    }
    return { s: this.open.start, e: this.open.end, f };
  }

  /** The series as the checkpoint keeps it. */
  state(): SeriesState {
    return {
      open: this.open ?? null,
      accs: [...this.accs],
      holds: [...this.holds].map(([name, hold]) => [name, { ...hold, until: Number.isFinite(hold.until) ? hold.until : null }]),
    };
  }

  /** The open bucket closed at its end (as a later reading would close it), undefined when there is none; the series has no open bucket after. */
  closeOpen(): BucketRecord | undefined {
    const record = this.open !== undefined && this.accs.size > 0 ? this.close(this.open) : undefined;
    this.open = undefined;
    this.accs.clear();
    return record;
  }

  private close(open: Span): BucketRecord {
    const f: Record<string, FieldRecord> = {};
    for (const [name, acc] of this.accs) {
      countHold(acc, this.holds.get(name)!, open.end);
      f[name] = recordOf(acc, open.end - open.start);
    }
    return { s: open.start, e: open.end, f };
  }
}
