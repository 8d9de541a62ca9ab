import type { FreshnessJudge, JudgedType } from '../freshness/judge.js';
import type { Reading } from '../storage/current-view.js';
import { fieldValue, flatData } from './fields.js';
import type { ReferenceCandidate } from './syntax.js';

// What an expression reads: each type's current reading and its freshness, judged once per
// evaluation round (every rule of a round sees the same instant), and the values of the
// readings' fields, each read once per round whatever the number of rules reading it.

/** The types an evaluation round may read. */
export interface RuleScope {
  /** The type judged now; undefined when it has no reading and no limit names it. */
  judged(type: string): JudgedType | undefined;
  /** The value of a reference's field in `reading` (JSON.parse's value), UNKNOWN when the reading has none there. */
  valueAt(reading: Reading, candidate: ReferenceCandidate): unknown;
  /**
   * The value of the expression `text` by its fast form `fast` (rules/fast.ts), taken once per
   * scope: a safety rule and an alarm holding the same expression evaluate it once.
   */
  fastValue(text: string, fast: (scope: RuleScope) => unknown): unknown;
}

interface ReadingValues {
  /** Its data text when a flat object (rules/fields.ts), null when not. */
  readonly flat: string | null;
  readonly byKey: Map<string, unknown>;
}

/** A scope over the current view at `now` (wall ms), asking the freshness judge (learned limits included) once per type. */
export function scopeOf(judge: FreshnessJudge, now: number): RuleScope {
  const seen = new Map<string, JudgedType | undefined>();
  // each reading's values by the reference's key (part and path): every rule reading a field shares one read
  const values = new Map<Reading, ReadingValues>();
  // the type and the reading asked for last: an expression reads the same one several times in a row
  let lastType: string | undefined;
  let lastJudged: JudgedType | undefined;
  let lastReading: Reading | undefined;
  let lastRead: ReadingValues | undefined;
  const results = new Map<string, unknown>();
  return {
    judged(type) {
      if (type === lastType) return lastJudged;
      let judged = seen.get(type);
      if (judged === undefined && !seen.has(type)) {
        judged = judge.judge(type, now);
        seen.set(type, judged);
      }
      lastType = type;
      lastJudged = judged;
      return judged;
    },
    valueAt(reading, candidate) {
      let read = reading === lastReading ? lastRead : values.get(reading);
      if (read === undefined) values.set(reading, read = { flat: flatData(reading), byKey: new Map() });
      lastReading = reading;
      lastRead = read;
      let value = read.byKey.get(candidate.key);
      if (value === undefined && !read.byKey.has(candidate.key)) {
        value = fieldValue(reading, candidate.part, candidate.path, read.flat, candidate.flat);
        read.byKey.set(candidate.key, value);
      }
      return value;
    },
    fastValue(text, fast) {
      let value = results.get(text);
      if (value === undefined) results.set(text, value = fast(this));
      return value;
    },
  };
}

/**
 * One scope per instant and state of the view: the safety verdict and the alarms judging after
 * the same turn (the same wall millisecond, no reading recorded between) share it, so each
 * type is judged and each field read once for both.
 */
export class ScopeRounds {
  private last: { now: number; version: number; scope: RuleScope } | undefined;

  constructor(private readonly judge: FreshnessJudge, private readonly view: { readonly version: number }) {}

  /** The scope at `now` (wall ms). */
  at(now: number): RuleScope {
    const version = this.view.version;
    const last = this.last;
    if (last !== undefined && last.now === now && last.version === version) return last.scope;
    const scope = scopeOf(this.judge, now);
    this.last = { now, version, scope };
    return scope;
  }
}
