import type { Logger } from '../../lib/log.js';
import { formatTs, monotonicNow, type Clock } from '../../lib/time.js';
import type { FreshnessJudge } from '../freshness/judge.js';
import { FRESH_TYPE, STALE_TYPE } from '../freshness/stale-events.js';
import { Condition, conditionTypes, type ConditionStep } from '../rules/condition.js';
import { formatDuration } from '../rules/duration.js';
import { staleReason } from '../rules/evaluate.js';
import { ScopeRounds, type RuleScope } from '../rules/scope.js';
import { TypeIndex } from '../rules/type-index.js';
import type { RecordedEvent, TelemetryStore } from '../storage/store.js';
import { safetyAnswer } from './answer.js';
import type { SafetyRule, SafetySpec } from './config.js';
import { raisedReason, raisedRules, recordedVerdict, SAFETY_TYPE, verdictEvent, type VerdictState } from './verdict-event.js';

// The safety verdict (docs/safety.md): unsafe at once when a required type is missing or
// stale, or a rule is raised or cannot be judged (fail-safe); safe only once the inputs have
// said safe for `safe_for` without a break. Judged again when a reading a rule or the
// required list reads becomes current (rules indexed by type; many readings in one turn are
// judged once), when a type turns stale or fresh, every interval (for `age()` and limits
// passing), when a `for` or `safe_for` wait ends, and before GET /safety answers.

/** Without a `[safety]` section: unsafe, for this reason. */
export const NOT_CONFIGURED = "no [safety] section in the daemon's config";

/** What the verdict runs on. */
export interface SafetyVerdictOptions {
  store: TelemetryStore;
  judge: FreshnessJudge;
  clock: Clock;
  logger: Logger;
  spec: SafetySpec | undefined;
  /** How often every rule is judged again (ms); 0: only on readings and timers. */
  intervalMs: number;
  /** The scopes it shares with the alarms (one per instant); its own when not given. */
  rounds?: ScopeRounds;
}

interface RuleState {
  readonly rule: SafetyRule;
  readonly condition: Condition;
  last: ConditionStep | undefined;
  /** The check that last stepped it (each rule once per check). */
  round: number;
}

/** The daemon's one safety verdict. */
export class SafetyVerdict {
  private readonly opts: SafetyVerdictOptions;
  private readonly rounds: ScopeRounds;
  private readonly rules: RuleState[];
  private readonly index = new TypeIndex<RuleState>();
  private readonly required: ReadonlySet<string>;
  private readonly inputTypes: readonly string[];
  private state: VerdictState;
  /** The safe value last recorded as an event (undefined: none yet). */
  private recorded: boolean | undefined;
  /** The rules raised when the last event was recorded (their names in the config's order): a restart takes them back from it. */
  private recordedRaised: string;
  private recording = false;
  /** Since when (monotonic ms) the inputs have said safe without a break. */
  private safeSince: number | undefined;
  private readonly dirty = new Set<string>();
  /** Until when (wall and monotonic ms) every required type is surely fresh (judge.freshWindow; -Infinity: ask each check). */
  private readonly requiredFresh = { wall: -Infinity, mono: -Infinity };
  /** How many rules are raised or cannot be judged, and how many wait for their `for` (kept as they step: a check of calm rules reads none). */
  private troubled = 0;
  private waiting = 0;
  /** raisedNames() as last built; undefined once a rule was raised or cleared since. */
  private raisedText: string | undefined;
  private round = 0;
  /** The monotonic time the `due` timer is set for. */
  private dueAt: number | undefined;
  private soon: NodeJS.Immediate | undefined;
  private timer: NodeJS.Timeout | undefined;
  private due: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;

  constructor(opts: SafetyVerdictOptions) {
    this.opts = opts;
    this.rounds = opts.rounds ?? new ScopeRounds(opts.judge, opts.store.view);
    const previous = recordedVerdict(opts.store.view.get(SAFETY_TYPE));
    const specRules = opts.spec?.rules ?? [];
    const raised = raisedRules(previous, specRules.map((r) => r.name));
    this.rules = specRules.map((rule) => ({ rule, condition: new Condition(rule.condition, raised.has(rule.name)), last: undefined, round: 0 }));
    for (const r of this.rules) this.index.add(r, conditionTypes(r.rule.condition));
    this.recount();
    this.required = new Set(opts.spec?.required ?? []);
    this.inputTypes = [...new Set([...this.required, ...this.rules.flatMap((r) => conditionTypes(r.rule.condition))])].sort();
    const now = opts.clock.now();
    this.state = previous ?? { safe: false, since: formatTs(now), reasons: [] };
    // a daemon without [safety] records nothing until a recorded safe verdict must be taken back
    this.recorded = previous?.safe ?? (opts.spec ? undefined : false);
    this.recordedRaised = specRules.filter((r) => raised.has(r.name)).map((r) => r.name).join('\n');
    // a safe verdict survives a restart (with its since) only if the inputs still say safe: the first check decides
  }

  /** Whether a `[safety]` section configured it. */
  get configured(): boolean {
    return this.opts.spec !== undefined;
  }

  /** Judge now, then on readings, stale turns and the interval. */
  start(): void {
    this.stopListening = this.opts.store.onRecorded((event) => this.onRecorded(event));
    this.check(true);
    if (this.opts.spec && this.opts.intervalMs > 0) {
      this.timer = setInterval(() => this.check(true), this.opts.intervalMs);
      this.timer.unref();
    }
  }

  /** Stop judging (at shutdown, before the store closes). */
  stop(): void {
    this.stopListening?.();
    clearInterval(this.timer);
    clearTimeout(this.due);
    this.due = undefined;
    this.dueAt = undefined;
    if (this.soon) clearImmediate(this.soon);
    this.soon = undefined;
  }

  /** The verdict now (judged again first: ages and `safe_for` move on between readings). */
  current(): VerdictState {
    this.check(true);
    return this.state;
  }

  /** The body of GET /safety. */
  answerText(): string {
    const state = this.current();
    return safetyAnswer(state, this.inputTypes, this.opts.judge, this.opts.clock.now(), this.configured);
  }

  /** Judge the required types and the rules (all of them, or those whose types changed) and record a change. */
  check(all = true): void {
    if (this.soon) clearImmediate(this.soon);
    this.soon = undefined;
    try {
      this.judge(all);
    } catch (error) {
      // a bug in judging must neither stop the daemon (this runs from timers) nor leave a safe verdict standing
      this.opts.logger.error(`judging the safety rules failed: ${(error as Error).stack ?? String(error)}`);
      this.safeSince = undefined;
      this.change(false, ['the rules could not be judged (an internal error; see the daemon log)'], this.opts.clock.now());
      this.record();
    }
  }

  private judge(all: boolean): void {
    const now = this.opts.clock.now();
    const mono = this.mono();
    const scope = this.rounds.at(now);
    this.step(all, scope, mono);
    const reasons = this.opts.spec ? this.reasons(scope, now, all) : [NOT_CONFIGURED];
    this.dirty.clear();
    let wakeAt: number | undefined;
    if (this.waiting > 0) for (const r of this.rules) wakeAt = earliest(wakeAt, r.last?.dueAt);
    if (reasons.length > 0) {
      this.safeSince = undefined;
      this.change(false, reasons, now);
    } else if (this.state.safe) {
      if (this.state.reasons.length > 0) this.state = { ...this.state, reasons: [] };
    } else {
      this.safeSince ??= mono;
      const held = mono - this.safeSince;
      const needed = this.opts.spec!.safeForMs;
      if (held >= needed) this.change(true, [], now);
      else {
        this.state = { ...this.state, reasons: [`safe for ${formatDuration(held)} of ${formatDuration(needed)}`] };
        wakeAt = earliest(wakeAt, this.safeSince + needed);
      }
    }
    this.wakeAt(wakeAt, mono);
    this.record();
  }

  /** Step every rule, or those that read a type recorded since the last check (each once). */
  private step(all: boolean, scope: RuleScope, mono: number): void {
    if (all) {
      for (const r of this.rules) this.stepRule(r, scope, mono);
      // counted again from the rules themselves on every full check (the interval's at least): a count that went wrong
      // cannot leave a raised rule out of the reasons for longer than that
      this.recount();
    } else {
      const round = ++this.round;
      for (const type of this.dirty) {
        for (const r of this.index.itemsFor(type)) {
          if (r.round === round) continue;
          r.round = round;
          this.stepRule(r, scope, mono);
        }
      }
    }
  }

  /** Step one rule, keeping the counts of troubled and waiting rules. */
  private stepRule(r: RuleState, scope: RuleScope, mono: number): void {
    const wasTroubled = troubled(r);
    const wasWaiting = waiting(r);
    r.last = r.condition.step(scope, mono);
    this.troubled += Number(troubled(r)) - Number(wasTroubled);
    this.waiting += Number(waiting(r)) - Number(wasWaiting);
    if (r.last.changed) this.raisedText = undefined;
  }

  /** The counts of troubled and waiting rules taken from the rules themselves. */
  private recount(): void {
    this.troubled = this.rules.filter(troubled).length;
    this.waiting = this.rules.filter(waiting).length;
  }

  /** Why the verdict is unsafe now (none: safe); `all`: every required type asked again. */
  private reasons(scope: RuleScope, now: number, all: boolean): readonly string[] {
    const judgeMono = this.opts.judge.monoNow();
    // inside the window in which every required type is fresh, a check asks only the types of its turn's readings
    const fresh = !all && now <= this.requiredFresh.wall && judgeMono <= this.requiredFresh.mono && this.freshReadings(now, judgeMono);
    if (fresh && this.troubled === 0) return NO_REASONS;
    const reasons: string[] = [];
    if (!fresh) this.requiredReasons(scope, now, judgeMono, reasons);
    if (this.troubled === 0) return reasons;
    for (const { rule, condition, last } of this.rules) {
      if (condition.raised) reasons.push(raisedReason(rule.name, rule.condition.when.text));
      if (last?.unknown) reasons.push(`rule ${rule.name} cannot be judged: ${last.unknown.join(', ')}`);
    }
    return reasons;
  }

  /** Whether the required types read this turn are fresh (narrowing the window to theirs): false sends the check to requiredReasons. */
  private freshReadings(now: number, judgeMono: number): boolean {
    const judge = this.opts.judge;
    for (const type of this.dirty) {
      if (!this.required.has(type)) continue;
      const window = judge.isFresh(type, now, judgeMono) ? judge.freshWindow(type) : undefined;
      if (window === undefined) return false;
      if (window.wall < this.requiredFresh.wall) this.requiredFresh.wall = window.wall;
      if (window.mono < this.requiredFresh.mono) this.requiredFresh.mono = window.mono;
    }
    return true;
  }

  /** Why each required type is not fresh, into `reasons`; keeps the window in which all are surely fresh. */
  private requiredReasons(scope: RuleScope, now: number, judgeMono: number, reasons: string[]): void {
    const judge = this.opts.judge;
    let wall = Infinity;
    let mono = Infinity;
    for (const type of this.required) {
      // most checks find every input fresh: told without building its judgement
      if (judge.isFresh(type, now, judgeMono)) {
        const window = judge.freshWindow(type);
        wall = Math.min(wall, window?.wall ?? -Infinity);
        mono = Math.min(mono, window?.mono ?? -Infinity);
        continue;
      }
      wall = -Infinity;
      const judged = scope.judged(type);
      if (!judged?.reading) reasons.push(`${type} is missing (no reading)`);
      else if (judged.freshness.stale) reasons.push(staleReason(judged));
    }
    this.requiredFresh.wall = wall;
    this.requiredFresh.mono = mono;
  }

  private change(safe: boolean, reasons: readonly string[], now: number): void {
    const since = safe === this.state.safe ? this.state.since : formatTs(now);
    this.state = { safe, since, reasons };
  }

  private onRecorded(event: RecordedEvent): void {
    const type = event.reading.type;
    // a turn to stale or fresh (not current when it is by a learned limit: docs/configuration.md#learned-limits)
    if (type === STALE_TYPE || type === FRESH_TYPE) {
      this.soon ??= setImmediate(() => this.check(true));
      return;
    }
    if (!event.makeCurrent) return;
    if (!this.required.has(type) && !this.index.has(type)) return;
    this.dirty.add(type);
    this.soon ??= setImmediate(() => this.check(false));
  }

  /**
   * Record the verdict when it differs from the last one recorded: `safe`, or the rules raised (a
   * rule raised or cleared while the verdict stays unsafe is a change too: a restart takes the
   * raised rules back from the latest event). A failed write is tried again on the next check.
   */
  private record(): void {
    const state = this.state;
    const raised = this.raisedNames();
    if (this.recording || (state.safe === this.recorded && raised === this.recordedRaised)) return;
    this.recording = true;
    this.opts.store.append(verdictEvent(state)).then(() => {
      this.recorded = state.safe;
      this.recordedRaised = raised;
      this.recording = false;
      if (this.state.safe !== this.recorded || this.raisedNames() !== this.recordedRaised) this.record();
    }, (error: unknown) => {
      this.recording = false;
      this.opts.logger.warn(`could not record ${SAFETY_TYPE} (${(error as Error).message}); trying again`);
    });
  }

  private raisedNames(): string {
    if (this.raisedText !== undefined) return this.raisedText;
    let names = '';
    for (const r of this.rules) if (r.condition.raised) names += names === '' ? r.rule.name : `\n${r.rule.name}`;
    this.raisedText = names;
    return names;
  }

  private wakeAt(at: number | undefined, mono: number): void {
    if (at === this.dueAt && (at === undefined || this.due !== undefined)) return;
    clearTimeout(this.due);
    this.due = undefined;
    this.dueAt = at;
    if (at === undefined) return;
    this.due = setTimeout(() => {
      this.due = undefined;
      this.dueAt = undefined;
      this.check(true);
    }, Math.max(0, Math.ceil(at - mono)));
    this.due.unref();
  }

  private mono(): number {
    const mono = monotonicNow(this.opts.clock);
    return Number.isNaN(mono) ? this.opts.clock.now() : mono;
  }
}

const NO_REASONS: readonly string[] = Object.freeze([]);

/** Whether a rule gives the verdict a reason: raised, or not judgeable at its last step. */
function troubled(r: RuleState): boolean {
  return r.condition.raised || r.last?.unknown !== undefined;
}

/** Whether a rule waits for its `for` to pass. */
function waiting(r: RuleState): boolean {
  return r.last?.dueAt !== undefined;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}
