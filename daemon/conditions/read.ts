import { ExactNumber } from '../../lib/exact-json.js';
import type { FreshnessJudge } from '../freshness/judge.js';
import { brief, firstValue, magnusDewpoint, staleReason } from '../rules/evaluate.js';
import { scopeOf, type RuleScope } from '../rules/scope.js';
import type { ConditionMapping, ConditionsConfig } from './config.js';
import { CONDITION_PROPERTIES, toCanonical, type CanonicalUnit, type ConditionProperty } from './units.js';

// The mapped properties now, in their canonical units, with the age and freshness of each
// reading they come from: what every output (INDI, Boltwood, Alpaca) publishes. A field is read
// by the rule language's reader (parsed once per reading); a stale reading's value is still
// given, with `stale` true and the reason, so an output can show it aged but never as fresh.

/** One property now. */
export interface ConditionValue {
  readonly property: ConditionProperty;
  /** The type it is read from (a computed dew point: the temperature's and humidity's types, joined by ", " when they differ). */
  readonly type: string;
  /** The canonical unit of `value`. */
  readonly unit: CanonicalUnit;
  /** The value in `unit`; null when it cannot be told (`reason` says why). */
  readonly value: number | null;
  /** `value` as JSON text: the recorded spelling when nothing was converted; null with `value`. */
  readonly text: string | null;
  /** The age of the reading in seconds (a computed dew point: the older input's); null without a reading. */
  readonly age_s: number | null;
  /** Stale or missing (fail-safe: a value that cannot be told is never fresh). */
  readonly stale: boolean;
  /** Why the value is null or stale. */
  readonly reason?: string;
  /** True for a dew point computed from temperature and humidity (Magnus). */
  readonly computed?: true;
}

/** Each mapped property at `nowMs` (wall ms), in CONDITION_PROPERTIES order; a dew point computed when not mapped. */
export function readConditions(judge: FreshnessJudge, config: ConditionsConfig, nowMs: number): ConditionValue[] {
  const scope = scopeOf(judge, nowMs);
  const values = config.mappings.map((m) => readOne(m, scope));
  const byProperty = new Map(values.map((v) => [v.property, v]));
  const t = byProperty.get('temperature');
  const rh = byProperty.get('humidity');
  if (!byProperty.has('dewpoint') && t && rh) values.push(dewpointOf(t, rh));
  const order = Object.keys(CONDITION_PROPERTIES);
  return values.sort((a, b) => order.indexOf(a.property) - order.indexOf(b.property));
}

function readOne(m: ConditionMapping, scope: RuleScope): ConditionValue {
  const judged = scope.judged(m.type);
  const base = { property: m.property, type: m.type, unit: m.canonical, age_s: judged?.freshness.age_s ?? null };
  const stale = !judged?.reading || judged.freshness.stale;
  const staleWhy = judged?.reading && stale ? staleReason(judged) : undefined;
  const outcome = firstValue(m.reference, readStale(scope))!;
  if ('reasons' in outcome) return { ...base, value: null, text: null, stale, reason: outcome.reasons.join(', ') };
  const raw = outcome.value instanceof ExactNumber ? outcome.value.value : outcome.value;
  if (typeof raw !== 'number' || !Number.isFinite(raw)) {
    return { ...base, value: null, text: null, stale, reason: `${fieldText(m)} is not a number (${brief(raw)})` };
  }
  const value = toCanonical(m.unit, raw);
  if (!Number.isFinite(value)) return { ...base, value: null, text: null, stale, reason: `${fieldText(m)} is not a finite number in ${m.canonical}` };
  const text = m.unit !== m.canonical ? JSON.stringify(value) : outcome.value instanceof ExactNumber ? outcome.value.text : JSON.stringify(value);
  return { ...base, value, text, stale, ...(staleWhy === undefined ? {} : { reason: staleWhy }) };
}

/** The field as the rule language's reasons show it (`weather.data.temp_c`). */
function fieldText(m: ConditionMapping): string {
  return m.reference.root.kind === 'reference' ? m.reference.root.text : m.reference.text;
}

/** The scope with stale readings read as any other (a stale value is given, marked stale). */
function readStale(scope: RuleScope): RuleScope {
  return {
    judged(type) {
      const j = scope.judged(type);
      return j?.freshness.stale ? { ...j, freshness: { ...j.freshness, stale: false } } : j;
    },
    reading(type) {
      const r = scope.reading(type);
      return r === null ? scope.judged(type)!.reading : r;
    },
    staleAt: () => NaN,
    valueAt: (reading, candidate) => scope.valueAt(reading, candidate),
    // its own values (stale read as fresh): never the values the scope it wraps remembers
    fastValue(expression) {
      return expression.fast(this);
    },
  };
}

function dewpointOf(t: ConditionValue, rh: ConditionValue): ConditionValue {
  const type = t.type === rh.type ? t.type : `${t.type}, ${rh.type}`;
  const age = t.age_s === null || rh.age_s === null ? null : Math.max(t.age_s, rh.age_s);
  const base = { property: 'dewpoint' as const, type, unit: 'degC' as const, age_s: age, stale: t.stale || rh.stale, computed: true as const };
  const why = t.reason ?? rh.reason;
  if (t.value === null || rh.value === null) return { ...base, value: null, text: null, reason: why! };
  const value = rh.value > 0 && rh.value <= 110 ? magnusDewpoint(t.value, rh.value) : NaN;
  if (!Number.isFinite(value)) {
    return { ...base, value: null, text: null, reason: `the dew point of ${t.value} degC and ${rh.value} % cannot be computed (the humidity must be above 0 and at most 110 %)` };
  }
  return { ...base, value, text: JSON.stringify(value), ...(why === undefined ? {} : { reason: why }) };
}
