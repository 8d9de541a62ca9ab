import type { Logger } from '../../lib/log.js';
import { formatTs, monotonicNow, type Clock } from '../../lib/time.js';
import type { JsonObject } from '../../lib/wire.js';
import type { TelemetryStore, ValidEvent } from '../storage/store.js';
import type { FreshnessJudge, JudgedType } from './judge.js';

// The files say when readings were missing: when a type turns stale the daemon records one
// `meridian.stale` event naming it, and one `meridian.fresh` when a new reading arrives.
// They are ordinary envelopes (current, in the active target's file); types starting with
// `meridian.` are never judged, so these never turn stale themselves. See docs/http-api.md.

export const STALE_TYPE = 'meridian.stale';
export const FRESH_TYPE = 'meridian.fresh';

/** How often the watch looks at the view (ms) unless told otherwise; a timer also fires at the next limit passing. */
export const CHECK_INTERVAL_MS = 1000;

/** What the watch runs on. */
export interface StaleWatchOptions {
  store: TelemetryStore;
  judge: FreshnessJudge;
  clock: Clock;
  logger: Logger;
  /** How often to look (ms), and at each limit passing; 0: only when check() is called. */
  intervalMs: number;
}

interface StaleMark {
  /** When the type turned stale: when its age passed its limit (the watch's start plus the limit for a type never seen). */
  sinceMs: number;
}

/** Watches the view's freshness and records each type's turns to stale and back. */
export class StaleWatch {
  private readonly opts: StaleWatchOptions;
  private readonly stale = new Map<string, StaleMark>();
  private readonly startedAt: number;
  private timer: NodeJS.Timeout | undefined;
  /** The timer to the next limit passing, and when it fires (on the monotonic clock, else the wall clock). */
  private next: { timer: NodeJS.Timeout; at: number } | undefined;
  private soon: NodeJS.Immediate | undefined;
  private stopListening: (() => void) | undefined;
  private turns = 0;

  constructor(opts: StaleWatchOptions) {
    this.opts = opts;
    this.startedAt = opts.clock.now();
  }

  /** How many turns (stale or fresh) have been seen: changes whenever the set of stale types did. */
  get transitions(): number {
    return this.turns;
  }

  /**
   * Look now, then every interval and when the next limit passes (so a type is recorded stale
   * within milliseconds, not up to an interval late), and as soon as a stale type gets a new
   * current reading. With no rules, only once a reading has a limit (its own `max_age_s`, or learned).
   */
  start(): void {
    const judge = this.opts.judge;
    let looking = false;
    const look = () => {
      looking = true;
      this.check();
      if (this.opts.intervalMs > 0) {
        this.timer = setInterval(() => this.check(), this.opts.intervalMs);
        this.timer.unref();
      }
    };
    this.stopListening = this.opts.store.onRecorded((event) => {
      if (!event.makeCurrent) return;
      if (!looking) {
        if (judge.readingLimit(event.reading) !== undefined) look();
      } else if (this.stale.has(event.reading.type)) {
        this.soon ??= setImmediate(() => this.check());
      } else if (this.opts.intervalMs > 0) {
        // a new reading whose limit passes before the timer fires: the timer goes to it
        const limit = judge.limitUnder(event.reading, this.next ? (this.next.at - this.now()) / 1000 : Infinity);
        if (limit !== undefined) this.wakeAt(limit * 1000);
      }
    });
    if (judge.limited || judge.anyOwnLimit()) look();
  }

  /** Stop looking (at shutdown, before the store closes). */
  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.next?.timer);
    this.next = undefined;
    if (this.soon) clearImmediate(this.soon);
    this.soon = undefined;
    this.stopListening?.();
  }

  /** Judge every type now and record the turns since the last look. */
  check(): void {
    this.soon = undefined;
    const now = this.opts.clock.now();
    const seen = new Set<string>();
    let soonest = Infinity;
    for (const judged of this.opts.judge.all(now)) {
      if (!judged.freshness.stale) {
        if (judged.maxAgeS !== undefined && judged.ageMs !== undefined) soonest = Math.min(soonest, judged.maxAgeS * 1000 - judged.ageMs);
        continue;
      }
      seen.add(judged.type);
      if (this.stale.has(judged.type)) continue;
      const limitMs = judged.maxAgeS! * 1000;
      // a type never seen has had its whole limit since the start to report before it is recorded stale
      const sinceMs = judged.reading && judged.ageMs !== undefined ? now - (judged.ageMs - limitMs) : this.startedAt + limitMs;
      if (!judged.reading && now <= sinceMs) {
        soonest = Math.min(soonest, sinceMs - now);
        continue;
      }
      const mark = { sinceMs };
      this.stale.set(judged.type, mark);
      this.turns++;
      this.record(STALE_TYPE, judged, mark, () => this.stale.delete(judged.type));
    }
    for (const [type, mark] of this.stale) {
      if (seen.has(type)) continue;
      this.stale.delete(type);
      this.turns++;
      const judged = this.opts.judge.judge(type, now);
      if (judged) this.record(FRESH_TYPE, judged, mark, () => this.stale.set(type, mark));
    }
    if (soonest !== Infinity && this.opts.intervalMs > 0) this.wakeAt(soonest);
  }

  /** Look again just after `ms` from now, unless the timer fires sooner already. */
  private wakeAt(ms: number): void {
    // a limit passes once the age is over it: the first whole ms after
    const delay = Math.max(0, Math.min(Math.floor(ms) + 1, 2 ** 31 - 1));
    const at = this.now() + delay;
    if (this.next && this.next.at <= at) return;
    clearTimeout(this.next?.timer);
    const timer = setTimeout(() => {
      this.next = undefined;
      this.check();
    }, delay);
    timer.unref();
    this.next = { timer, at };
  }

  /** The clock the timer is set on: monotonic when there is one. */
  private now(): number {
    const mono = monotonicNow(this.opts.clock);
    return Number.isNaN(mono) ? this.opts.clock.now() : mono;
  }

  /** Append one event; when it cannot be recorded, `undo` so that the next look tries again. */
  private record(type: string, judged: JudgedType, mark: StaleMark, undo: () => void): void {
    const data = eventData(judged, mark);
    this.opts.store.append(daemonEvent(type, data)).catch((error: unknown) => {
      undo();
      this.opts.logger.warn(`could not record ${type} for ${JSON.stringify(judged.type)} (${(error as Error).message}); trying again`);
    });
  }
}

/** The data of a stale/fresh event: the type, its age and limit (and where the limit comes from), the reading it is about, and since when it was stale. */
export function eventData(judged: JudgedType, mark: StaleMark): JsonObject {
  const envelope = judged.reading?.envelope;
  return {
    type: judged.type,
    age_s: judged.freshness.age_s,
    max_age_s: judged.freshness.max_age_s,
    max_age_from: judged.maxAgeFrom,
    last_seq: envelope?.seq ?? null,
    last_ts: envelope?.ts ?? null,
    last_run_id: typeof envelope?.meta?.run_id === 'string' ? envelope.meta.run_id : null,
    stale_since: formatTs(mark.sinceMs),
  };
}

// A turn judged by a learned limit is recorded but not made current: the default GET /current
// stays what the original service answers (Drop-in) unless a limit was configured.
function daemonEvent(type: string, data: JsonObject): ValidEvent {
  return { type, data: JSON.stringify(data), makeCurrent: data.max_age_from !== 'learned', storePermanently: true, meta: '{}' };
}
