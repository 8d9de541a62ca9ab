import type { FreshnessJudge, JudgedType } from '../freshness/judge.js';
import type { Reading } from '../storage/current-view.js';
import { fieldValue, isFlat } from './fields.js';
import type { FieldCell, ReferenceCandidate } from './syntax.js';

/** An expression's value and the scope it was taken in (undefined: none yet). */
export interface ValueCell {
  scope: object | undefined;
  value: unknown;
}

/** What a scope needs of a compiled expression (rules/compile.ts CompiledExpression): its text, its closures and its cell. */
export interface ScopedExpression {
  readonly text: string;
  readonly fast: (scope: RuleScope) => unknown;
  cell?: ValueCell;
}

// What an expression reads: each type's current reading and its freshness, judged once per
// evaluation round (every rule of a round sees the same instant), and the values of the
// readings' fields, each read once per round whatever the number of rules reading it.

/** The types an evaluation round may read. */
export interface RuleScope {
  /** The type judged now; undefined when it has no reading and no limit names it. */
  judged(type: string): JudgedType | undefined;
  /** The type's reading when fresh now, null when stale, undefined when it has none: what judged() says of it, without building the judgement (the fast path). */
  reading(type: string): Reading | null | undefined;
  /**
   * The monotonic ms from which the type's current reading is stale (its limit passed), when it
   * is fresh now and that is known without building its judgement; undefined when it has no
   * fresh reading, NaN when not known that way (ask judged()).
   */
  staleAt(type: string): number | undefined;
  /** The value of a reference's field in `reading` (JSON.parse's value), UNKNOWN when the reading has none there. */
  valueAt(reading: Reading, candidate: ReferenceCandidate): unknown;
  /**
   * The value of `expression` by its fast form (rules/fast.ts), taken once per scope: a safety
   * rule and an alarm holding the same expression evaluate it once.
   */
  fastValue(expression: ScopedExpression): unknown;
}

/** What ScopeRounds keeps for all its scopes: each expression's and each field's last value, by text (looked up once per expression or reference). */
export interface ScopeCells {
  readonly expressions: Map<string, ValueCell>;
  readonly fields: Map<string, FieldCell>;
}

/**
 * A scope over the current view at `now` (wall ms), asking the freshness judge (learned limits
 * included) once per type; `cells`: the expressions' and fields' values kept by their text
 * (ScopeRounds keeps them for all its scopes: no map is looked in per reference and scope).
 */
export function scopeOf(judge: FreshnessJudge, now: number, cells: ScopeCells = { expressions: new Map(), fields: new Map() }): RuleScope {
  const seen = new Map<string, JudgedType | undefined>();
  const fresh = new Map<string, Reading | null | undefined>();
  // one instant for every type of the scope, on the monotonic clock as well
  const mono = judge.monoNow();
  // the type asked for last: an expression reads the same one several times in a row
  let lastType: string | undefined;
  let lastJudged: JudgedType | undefined;
  let lastFreshType: string | undefined;
  let lastFresh: Reading | null | undefined;
  // the reading whose data was looked at last, and whether it is flat (rules/fields.ts)
  let lastReading: Reading | undefined;
  let lastFlat = false;
  return {
    judged(type) {
      if (type === lastType) return lastJudged;
      let judged = seen.get(type);
      if (judged === undefined && !seen.has(type)) {
        judged = judge.judge(type, now, mono);
        seen.set(type, judged);
      }
      lastType = type;
      lastJudged = judged;
      return judged;
    },
    reading(type) {
      if (type === lastFreshType) return lastFresh;
      // each type told once per scope: a scope asked again later still reads the view of its instant
      let answer = fresh.get(type);
      if (answer === undefined && !fresh.has(type)) {
        const judged = seen.get(type);
        answer = judged !== undefined ? (judged.reading === undefined ? undefined : judged.freshness.stale ? null : judged.reading)
          : judge.freshReading(type, now, mono);
        fresh.set(type, answer);
      }
      lastFreshType = type;
      lastFresh = answer;
      return answer;
    },
    staleAt(type) {
      if (!this.reading(type)) return undefined;
      const window = judge.freshWindow(type);
      // fresh through the window's last ms, stale from the next one (by receipt, or by ts on the wall clock)
      return window === undefined ? NaN : Math.min(window.mono, mono + (window.wall - now)) + 1;
    },
    valueAt(reading, candidate) {
      // every rule reading a field of this reading shares one read
      let cell = candidate.cell;
      if (cell === undefined) {
        const key = `${candidate.type}\u0000${candidate.key}`;
        cell = cells.fields.get(key);
        if (cell === undefined) cells.fields.set(key, cell = { reading: undefined, value: undefined, first: undefined });
        candidate.cell = cell;
      }
      // a field's value is the reading's alone: kept until another reading of the type is read
      if (cell.reading === reading) return cell.value;
      if (reading !== lastReading) {
        lastReading = reading;
        lastFlat = isFlat(reading);
      }
      const value = fieldValue(reading, candidate.part, candidate.path, lastFlat, candidate.flat);
      cell.reading = reading;
      cell.value = value;
      cell.first = undefined;
      return value;
    },
    fastValue(expression) {
      let cell = expression.cell;
      if (cell === undefined) {
        cell = cells.expressions.get(expression.text);
        if (cell === undefined) cells.expressions.set(expression.text, cell = { scope: undefined, value: undefined });
        expression.cell = cell;
      }
      if (cell.scope === this) return cell.value;
      const value = expression.fast(this);
      cell.scope = this;
      cell.value = value;
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
  /** The expressions' and fields' values by text, each kept for the scope that took it last. */
  private readonly cells: ScopeCells = { expressions: new Map(), fields: new Map() };

  constructor(private readonly judge: FreshnessJudge, private readonly view: { readonly version: number }) {}

  /** The scope at `now` (wall ms). */
  at(now: number): RuleScope {
    const version = this.view.version;
    const last = this.last;
    if (last !== undefined && last.now === now && last.version === version) return last.scope;
    const scope = scopeOf(this.judge, now, this.cells);
    this.last = { now, version, scope };
    return scope;
  }
}
