import type { FreshnessJudge, JudgedType } from '../freshness/judge.js';

// What an expression reads: each type's current reading and its freshness, judged once per
// evaluation round (every rule of a round sees the same instant).

/** The types an evaluation round may read. */
export interface RuleScope {
  /** The type judged now; undefined when it has no reading and no limit names it. */
  judged(type: string): JudgedType | undefined;
}

/** A scope over the current view at `now` (wall ms), asking the freshness judge (learned limits included) once per type. */
export function scopeOf(judge: FreshnessJudge, now: number): RuleScope {
  const seen = new Map<string, JudgedType | undefined>();
  return {
    judged(type) {
      if (seen.has(type)) return seen.get(type);
      const judged = judge.judge(type, now);
      seen.set(type, judged);
      return judged;
    },
  };
}
