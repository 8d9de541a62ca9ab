import { maxAgeOf, type MaxAgeRules } from '../../lib/max-age.js';
import type { EnvelopeParts } from './envelope-parts.js';
import { numericFields, type FieldsSeen } from './fields.js';
import { Series, type BucketRecord, type SeriesState } from './series.js';
import { tierFile } from './tier-file.js';
import { TIERS, type TierName } from './tiers.js';

// Every type's rollups in every tier, fed envelope by envelope in record order. Closed buckets
// wait in `pending` (by tier file, relative to the rollups directory) until the next flush appends
// them to their tier files (tier-store.ts).

/** One type's rollup: the ts of its last reading folded, its first, and a series per tier. */
interface TypeRollup {
  first: number;
  last: number;
  series: Record<TierName, Series>;
  /** Per tier: where its closed buckets go (made once: a fold allocates nothing for it). */
  emit: Record<TierName, (record: BucketRecord) => void>;
}

/** What a type's rollup is saved as in the checkpoint. */
export interface TypeState {
  first: number;
  last: number;
  series: Record<TierName, SeriesState>;
}

/** The rollups of a site directory in memory. */
export class RollupEngine {
  private readonly types = new Map<string, TypeRollup>();
  /** Closed buckets not yet appended, by tier file. */
  readonly pending = new Map<string, BucketRecord[]>();
  /** Readings left out because their ts was before their type's last reading folded. */
  late = 0;
  /**
   * Per type: readings with a top-level member not taken as named (fields.ts FieldsSeen); the
   * night report reads a type's top-level fields from the tiers only when it has none.
   * Undefined: not known (a checkpoint written before it was counted).
   */
  omitted: Record<string, number> | undefined = {};
  /** Scratch of fold(): reset for each reading. */
  private readonly seen: FieldsSeen = { omitted: false };

  constructor(private readonly zone: string, private readonly rules: MaxAgeRules,
    state?: Readonly<Record<string, TypeState>>) {
    for (const [type, saved] of Object.entries(state ?? {})) {
      const series = {} as Record<TierName, Series>;
      for (const tier of TIERS) series[tier] = new Series(tier, zone, saved.series[tier]);
      this.types.set(type, { first: saved.first, last: saved.last, series, emit: this.emitters(type) });
    }
  }

  /** Fold one recorded envelope. A reading older than its type's last one is left out (counted in `late`). */
  fold(parts: EnvelopeParts): void {
    this.seen.omitted = false;
    const fields = numericFields(parts.data, this.seen);
    const { type, at } = parts;
    if (this.seen.omitted && this.omitted) this.omitted[type] = (this.omitted[type] ?? 0) + 1;
    if (fields.length === 0) return;
    let rollup = this.types.get(type);
    if (rollup === undefined) {
      const series = {} as Record<TierName, Series>;
      for (const tier of TIERS) series[tier] = new Series(tier, this.zone);
      rollup = { first: at, last: at, series, emit: this.emitters(type) };
      this.types.set(type, rollup);
    } else if (at < rollup.last) {
      this.late++;
      return;
    }
    rollup.last = at;
    const seconds = parts.ownMaxAge ?? maxAgeOf(this.rules, type);
    const holdMs = seconds === undefined ? Infinity : seconds * 1000;
    for (const tier of TIERS) rollup.series[tier].fold(at, fields, holdMs, rollup.emit[tier]);
  }

  /** The ts (ms) of a type's first reading folded, undefined when it has none. */
  firstOf(type: string): number | undefined {
    return this.types.get(type)?.first;
  }

  /** The ts (ms) of a type's last reading folded, undefined when it has none. */
  lastOf(type: string): number | undefined {
    return this.types.get(type)?.last;
  }

  /**
   * Take a type's open buckets and last reading from `saved` (old tiers that saw newer readings
   * than the files: keep-old.ts); its own open 1-minute bucket is returned closed (nothing of
   * the type may be pending; the caller drops what was written of it).
   */
  adopt(type: string, saved: TypeState): BucketRecord | undefined {
    const current = this.types.get(type);
    const open = current?.series['1m'].closeOpen();
    const series = {} as Record<TierName, Series>;
    for (const tier of TIERS) series[tier] = new Series(tier, this.zone, saved.series[tier]);
    this.types.set(type, { first: Math.min(current?.first ?? saved.first, saved.first), last: saved.last, series, emit: this.emitters(type) });
    return open;
  }

  /** The types with readings folded. */
  typeNames(): string[] {
    return [...this.types.keys()];
  }

  /** A type's series of one tier as the checkpoint keeps it (undefined: no reading of the type). */
  seriesState(type: string, tier: TierName): SeriesState | undefined {
    return this.types.get(type)?.series[tier].state();
  }

  /** Put a type's series of one tier back as `saved` holds it (its open bucket kept from old tiers: keep-old.ts). */
  restoreSeries(type: string, tier: TierName, saved: SeriesState): void {
    const rollup = this.types.get(type);
    if (rollup) rollup.series[tier] = new Series(tier, this.zone, saved);
  }

  /** The open bucket of a type in a tier as answered at `now`. */
  openRecord(type: string, tier: TierName, now: number): BucketRecord | undefined {
    return this.types.get(type)?.series[tier].openRecord(now);
  }

  /** Every type's rollup as the checkpoint keeps it, types in name order (the same state, the same bytes). */
  state(): Record<string, TypeState> {
    // fromEntries defines own keys: a type named __proto__ is a key like any other
    return Object.fromEntries([...this.types.keys()].sort().map((type) => {
      const rollup = this.types.get(type)!;
      const series = {} as Record<TierName, SeriesState>;
      for (const tier of TIERS) series[tier] = rollup.series[tier].state();
      return [type, { first: rollup.first, last: rollup.last, series }];
    }));
  }

  private emitters(type: string): Record<TierName, (record: BucketRecord) => void> {
    const emit = {} as Record<TierName, (record: BucketRecord) => void>;
    for (const tier of TIERS) {
      const file = tierFile(tier, type);
      emit[tier] = (record) => this.queue(file, record);
    }
    return emit;
  }

  private queue(file: string, record: BucketRecord): void {
    const list = this.pending.get(file);
    if (list) list.push(record);
    else this.pending.set(file, [record]);
  }
}
