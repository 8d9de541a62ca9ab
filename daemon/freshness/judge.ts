import { DAEMON_TYPE_PREFIX, expectedTypes, isPastLimit, readingMaxAge, ruleOf, type MaxAgeRules } from '../../lib/max-age.js';
import { readingAgeMs, type DaemonStart } from '../../lib/reading-age.js';
import { mayNameKey } from '../../lib/json-text.js';
import { monotonicNow, type Clock } from '../../lib/time.js';
import type { Freshness, MaxAgeFrom } from '../../lib/wire.js';
import type { Reading } from '../storage/current-view.js';
import { CadenceLearner, LEARNED_FLOOR_S } from './learner.js';
import type { KnownLimits } from './limits-file.js';

// How fresh each type of the current view is, by the reading's own `meta.max_age_s` (an
// event's `max_age_s`) for that reading, else the `--max-age` rules, else the limit learned
// from the type's cadence (learner.ts; learning is fed by observe()):
// for GET /current, /status, the stale/fresh events and metrics. A reading's age is the larger
// of its age by ts and the time since the daemon received it (lib/reading-age.ts), so a clock
// stepped back neither shows a negative age nor keeps a dead sensor fresh. Reads the view;
// keeps nothing but a cache of each reading's parsed ts and own limit, and the types in order.

/** What the judge reads: the current view. */
export interface JudgedView {
  readonly version: number;
  get(type: string): Reading | undefined;
  entries(): Reading[];
}

/** One judged type: its reading (none when an expected type has none yet) and freshness. */
export interface JudgedType {
  type: string;
  reading: Reading | undefined;
  /** The reading's ts in epoch ms (NaN when none or unreadable). */
  tsMs: number;
  /** Its age in ms (lib/reading-age.ts), undefined when it has none or its ts is unreadable. */
  ageMs: number | undefined;
  /** The limit in seconds (the reading's own, else the rules', else the learned one), undefined when none applies. */
  maxAgeS: number | undefined;
  /** Where the limit comes from; null when none applies. */
  maxAgeFrom: MaxAgeFrom | null;
  freshness: Freshness;
}

// every envelope line starts `{"seq":N,"ts":"...`: read ts there without parsing the line
const TS_AT_START = /^\{"seq":\d+,"ts":"([^"\\]{1,64})"/;

/** Judges the view's readings against the rules. */
export class FreshnessJudge {
  readonly rules: MaxAgeRules;
  private readonly view: JudgedView;
  private readonly expected: string[];
  private readonly tsOf = new WeakMap<Reading, number>();
  /** Each type's limit by the rules (they never change while the daemon runs): null for `none`, undefined for no rule. */
  private readonly limits = new Map<string, number | null | undefined>();
  private readonly learner = new CadenceLearner();
  /** Per reading, the text of its freshness member around the age: `"type":{"age_s":` and `,"max_age_s":N,"max_age_from":F,"stale":`, and N. */
  private readonly memberText = new WeakMap<Reading, [head: string, middle: string, limit: number | undefined]>();
  private readonly ownLimit = new WeakMap<Reading, number | null>();
  /**
   * Per type, its reading last judged fresh by isFresh and until when (wall and monotonic ms) it
   * surely stays so (its limit cannot change: a new limit comes with a new reading); one record
   * a type, updated in place (a WeakMap entry per reading showed in the profile).
   */
  private readonly freshUntil = new Map<string, { reading: Reading; wall: number; mono: number }>();
  private sorted: { version: number; readings: Reading[] } | undefined;
  private sortedAll: { version: number; types: { type: string; reading: Reading | undefined }[] } | undefined;
  private readonly clock: Clock | undefined;
  /** The daemon's start (monotonic and wall): when a reading recovered at start-up counts as received at the latest. */
  private readonly start: DaemonStart;

  /**
   * `clock`: its monotonic part judges how long ago a reading was received (without one, ts
   * alone). `known`: the learned limits of the daemon's last life (limits-file.ts), undefined
   * when they were lost; `floored`: the types a recovered reading of which with no limit known
   * is judged by the floor (the required safety inputs).
   */
  constructor(view: JudgedView, rules: MaxAgeRules, clock?: Clock, known?: KnownLimits, floored: readonly string[] = []) {
    this.view = view;
    this.rules = rules;
    this.expected = expectedTypes(rules);
    this.clock = clock;
    this.start = { mono: clock ? monotonicNow(clock) : NaN, wall: clock ? clock.now() : NaN };
    // a reading recovered at start-up is one sighting of its type, when the daemon received it
    for (const reading of view.entries()) this.observe(reading);
    const recovered = view.entries().map((r) => r.type).filter((type) => floored.includes(type));
    this.learner.restore(known ?? new Map(), recovered);
  }

  /** Each type's learned limit to keep for the next life (learned-limits.json). */
  knownLimits(): Map<string, number> {
    return this.learner.known();
  }

  /** Whether any rule limits anything or any limit was learned (else, and with no reading with its own limit, nothing is stale). */
  get limited(): boolean {
    return this.rules.some((r) => r.seconds !== null) || this.learner.any();
  }

  /** A reading became current: one sighting of its type for the learner (`meridian.` types are never judged). */
  observe(reading: Reading): void {
    if (reading.type.startsWith(DAEMON_TYPE_PREFIX)) return;
    this.learner.seen(reading.type, Number.isNaN(reading.receivedMono) ? this.recoveredMono(reading) : reading.receivedMono);
  }

  /** The limit of a current reading in seconds, whatever its source (undefined: none): limitFor's, without its source. */
  readingLimit(reading: Reading): number | undefined {
    const own = this.limitOf(reading);
    if (own !== undefined) return own;
    const rule = this.ruleLimit(reading.type);
    if (rule !== undefined) return rule ?? undefined;
    return this.learner.limitOf(reading.type);
  }

  /**
   * Whether `type` has a reading that is not stale at `now`: what judge(type, now) says of it,
   * without building the judgement (the safety verdict asks it of every required input on
   * every check); `mono`: monoNow(), taken once for many.
   */
  isFresh(type: string, now: number, mono = this.monoNow()): boolean {
    const reading = this.view.get(type);
    if (reading === undefined) return false;
    // fresh while both its age by ts and the time since it was received are within the limit: known once per reading
    const until = this.freshUntil.get(type);
    if (until !== undefined && until.reading === reading && now <= until.wall && mono <= until.mono) return true;
    const limit = this.readingLimit(reading);
    const fresh = !isPastLimit(this.ageOf(reading, now, mono), limit);
    if (fresh && limit !== undefined && !Number.isNaN(reading.tsMs) && !Number.isNaN(reading.receivedMono)) {
      const wall = reading.tsMs + limit * 1000;
      const monoUntil = reading.receivedMono + limit * 1000;
      if (until === undefined) this.freshUntil.set(type, { reading, wall, mono: monoUntil });
      else {
        until.reading = reading;
        until.wall = wall;
        until.mono = monoUntil;
      }
    }
    return fresh;
  }

  /** The type's reading when it is fresh (isFresh, without building a judgement), null when it has one that is stale, undefined when none. */
  freshReading(type: string, now: number, mono: number): Reading | null | undefined {
    const reading = this.view.get(type);
    if (reading === undefined) return undefined;
    return this.isFresh(type, now, mono) ? reading : null;
  }

  /**
   * After isFresh(type) said true: until when (wall and monotonic ms) the type's current
   * reading surely stays fresh; undefined when that is not known (ask isFresh again each time).
   * A new reading of the type ends the window (its limit may be another).
   */
  freshWindow(type: string): { readonly wall: number; readonly mono: number } | undefined {
    const until = this.freshUntil.get(type);
    return until !== undefined && until.reading === this.view.get(type) ? until : undefined;
  }

  /** The monotonic time the judge reads ages at (NaN without a clock): one for a run of isFresh calls. */
  monoNow(): number {
    return this.clock ? monotonicNow(this.clock) : NaN;
  }

  /**
   * The limit of a current reading in seconds when it is under `seconds`, else undefined: what
   * the watch asks of every recorded reading, so the median is not taken when no learned limit
   * (never under LEARNED_FLOOR_S) could be under it.
   */
  limitUnder(reading: Reading, seconds: number): number | undefined {
    const own = this.limitOf(reading);
    if (own !== undefined) return own < seconds ? own : undefined;
    const rule = this.ruleLimit(reading.type);
    if (rule !== undefined) return rule !== null && rule < seconds ? rule : undefined;
    if (seconds <= LEARNED_FLOOR_S) return undefined;
    const learned = this.learner.limitOf(reading.type);
    return learned !== undefined && learned < seconds ? learned : undefined;
  }

  /** The learned limits in force (no rule, no reading's own limit), by type: GET /status `learned`. */
  learned(): Record<string, number> {
    const learned: Record<string, number> = {};
    for (const reading of this.sortedReadings()) {
      const [limit, from] = this.limitFor(reading.type, reading);
      if (from === 'learned') learned[reading.type] = limit!;
    }
    return learned;
  }

  /** The limit a reading carries for itself (its `meta.max_age_s`), undefined when none. */
  limitOf(reading: Reading): number | undefined {
    // a reading recorded by this daemon knows its limit; most carry none (this runs for every recorded event)
    if (reading.ownLimit !== undefined) return reading.ownLimit ?? undefined;
    if (!reading.mayCarryLimit || !mayNameKey(reading.json, 'max_age_s')) return undefined;
    let seconds = this.ownLimit.get(reading);
    if (seconds === undefined) {
      seconds = readingMaxAge(reading.envelope) ?? null;
      this.ownLimit.set(reading, seconds);
    }
    return seconds ?? undefined;
  }

  /** Whether a reading of the view carries its own limit (a scan of the view: for start-up). */
  anyOwnLimit(): boolean {
    return this.view.entries().some((r) => this.limitOf(r) !== undefined);
  }

  /** One type at `now` (and `mono`: monoNow()); undefined when it has no reading and no rule names it. */
  judge(type: string, now: number, mono = this.monoNow()): JudgedType | undefined {
    const reading = this.view.get(type);
    if (!reading && !this.expected.includes(type)) return undefined;
    return this.judged(type, reading, now, mono);
  }

  /** Every type of the view and every expected type without a reading, sorted by type (as /current lists them). */
  all(now: number): JudgedType[] {
    return this.sortedTypes().map(({ type, reading }) => this.judged(type, reading, now));
  }

  /**
   * The members of the `freshness` object of the whole view at `now` (`"type":{...}`, sorted
   * by type), as JSON text: what GET /current answers on every request, so built from text
   * kept per reading rather than by serialising objects (1,000 types: ~0.1 ms, not ~1 ms).
   */
  freshnessMembers(now: number): string[] {
    const types = this.sortedTypes();
    const mono = this.monoNow();
    const members = new Array<string>(types.length);
    for (let i = 0; i < types.length; i++) {
      const { type, reading } = types[i]!;
      if (!reading) {
        members[i] = `${JSON.stringify(type)}:${JSON.stringify(this.judged(type, undefined, now).freshness)}`;
        continue;
      }
      let text = this.memberText.get(reading);
      if (!text) {
        const [limit, from] = this.limitFor(type, reading);
        text = [`${JSON.stringify(type)}:{"age_s":`, `,"max_age_s":${limit ?? null},"max_age_from":${from === null ? null : `"${from}"`},"stale":`, limit];
        this.memberText.set(reading, text);
      }
      const age = this.ageOf(reading, now, mono);
      members[i] = `${text[0]}${age === undefined ? null : secondsText(age)}${text[1]}${isPastLimit(age, text[2])}}`;
    }
    return members;
  }

  /** How many types are stale at `now` (expected types without a reading included). */
  staleCount(now: number): number {
    const mono = this.monoNow();
    let n = 0;
    for (const reading of this.view.entries()) {
      const [limit] = this.limitFor(reading.type, reading);
      if (limit !== undefined && isPastLimit(this.ageOf(reading, now, mono), limit)) n++;
    }
    return n + this.expected.filter((type) => !this.view.get(type)).length;
  }

  private judged(type: string, reading: Reading | undefined, now: number, mono = this.monoNow()): JudgedType {
    const tsMs = reading ? this.ts(reading) : NaN;
    const [maxAgeS, maxAgeFrom] = this.limitFor(type, reading);
    const age = reading ? this.ageOf(reading, now, mono) : undefined;
    const freshness = { age_s: age === undefined ? null : age / 1000, max_age_s: maxAgeS ?? null, max_age_from: maxAgeFrom, stale: isPastLimit(age, maxAgeS) };
    return { type, reading, tsMs, ageMs: age, maxAgeS, maxAgeFrom, freshness };
  }

  /** A reading's age at `now` (wall) and `mono` (monotonic). */
  private ageOf(reading: Reading, now: number, mono: number): number | undefined {
    return readingAgeMs(this.ts(reading), reading.receivedMono, now, mono, this.start, reading.receivedAt);
  }



  /** The limit of a reading and where it comes from: its own, else its type's by the rules, else the learned one. */
  private limitFor(type: string, reading: Reading | undefined): [number | undefined, MaxAgeFrom | null] {
    const own = reading && this.limitOf(reading);
    if (own !== undefined) return [own, 'reading'];
    const rule = this.ruleLimit(type);
    if (rule !== undefined) return rule === null ? [undefined, null] : [rule, 'rule'];
    const learned = reading ? this.learner.limitOf(type) : undefined;
    return learned === undefined ? [undefined, null] : [learned, 'learned'];
  }

  private ruleLimit(type: string): number | null | undefined {
    if (this.limits.has(type)) return this.limits.get(type);
    const limit = ruleOf(this.rules, type);
    this.limits.set(type, limit);
    return limit;
  }

  /** When a reading recovered at start-up was received, on this daemon's monotonic clock (its receipt, else its ts; at the latest the start). */
  private recoveredMono(reading: Reading): number {
    const at = Number.isNaN(reading.receivedAt) ? this.ts(reading) : reading.receivedAt;
    const before = this.start.wall - at;
    return this.start.mono - (before > 0 ? before : 0);
  }

  private ts(reading: Reading): number {
    if (!Number.isNaN(reading.tsMs)) return reading.tsMs;
    // a reading recovered at start-up: its ts read from its line once
    let ms = this.tsOf.get(reading);
    if (ms === undefined) {
      const m = TS_AT_START.exec(reading.json);
      ms = Date.parse(m ? m[1]! : reading.envelope.ts);
      this.tsOf.set(reading, ms);
    }
    return ms;
  }

  /** The view's types and the expected ones without a reading, sorted by type; rebuilt when the view changed. */
  private sortedTypes(): { type: string; reading: Reading | undefined }[] {
    const version = this.view.version;
    if (this.sortedAll?.version !== version) {
      const present = this.sortedReadings().map((reading) => ({ type: reading.type, reading }));
      const missing = this.expected.filter((type) => !this.view.get(type)).map((type) => ({ type, reading: undefined }));
      const types = missing.length === 0 ? present
        : [...present, ...missing].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
      this.sortedAll = { version, types };
    }
    return this.sortedAll.types;
  }

  private sortedReadings(): Reading[] {
    if (this.sorted?.version !== this.view.version) {
      const readings = this.view.entries().sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
      this.sorted = { version: this.view.version, readings };
    }
    return this.sorted.readings;
  }
}

/**
 * `ms / 1000` as JSON writes it (`12`, `20.953`, `0.5`), from integer digits: converting a
 * fraction to text is the slowest step of a /current answer (~1 us a number).
 */
function secondsText(ms: number): string {
  if (!Number.isSafeInteger(ms)) return String(ms / 1000);
  const fraction = ms % 1000;
  if (fraction === 0) return String(ms / 1000);
  const digits = String(fraction + 1000).slice(1).replace(/0+$/, '');
  return `${(ms - fraction) / 1000}.${digits}`;
}
