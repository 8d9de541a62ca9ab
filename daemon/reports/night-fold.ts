import { forEachMember } from '../../lib/json-text.js';
import { canonicalTs, type LineHead } from '../ndjson/head.js';
import { replayChanges, splitGapAt, type ClockChange } from './night-changes.js';
import { StateClock, UNKNOWN } from './state-clock.js';
import { WeatherStats } from './weather-stats.js';

// The night report's tallies, folded from the recorded lines in record order (one pass, no
// line kept): counts, runs, gaps, and the clocks of safety, staleness and POCS state (their
// changes counted at their ts at the end: night-changes.ts).

/** The event types the report reads beyond their head. */
export const SAFETY = 'meridian.safety';
export const ALARM = 'meridian.alarm';
export const STALE = 'meridian.stale';
export const FRESH = 'meridian.fresh';
export const POCS_STATE = 'state';
/** POCS's status reading, whose `data.state` is its state. */
export const POCS_STATUS = 'status';
export const WEATHER = 'weather';
/** Alarm transitions listed in a report (all are counted). */
export const ALARMS_LISTED = 500;
/** Safety verdict changes listed in a report (all are counted): a verdict flapping all night stays a bounded answer. */
export const SAFETY_CHANGES_LISTED = 10_000;

/** What was known when the span began (read from the day before it). */
export interface StartState {
  safety: string;
  stale: ReadonlySet<string>;
  state: string;
}

/** Where the fold runs: the span, the gap threshold. */
export interface FoldSpan {
  fromMs: number;
  /** The end of the totals: the span's end, or now while it goes on. */
  untilMs: number;
  /** The span's end (the weather series is cut over [fromMs, toMs)). */
  toMs: number;
  gapMs: number;
}

/** The tallies of one span. */
export class NightFold {
  readonly span: FoldSpan;
  readonly start: StartState;
  readonly counts = new Map<string, number>();
  readonly runs = new Map<string, { first: string; last: string; events: number }>();
  readonly gaps: { fromMs: number; toMs: number }[] = [];
  readonly safety: StateClock;
  readonly safetyChanges: { ts: string; safe: boolean; reasons: string[] }[] = [];
  readonly stale = new Map<string, { clock: StateClock; times: number }>();
  readonly alarms: { ts: string; id: string; from: string; to: string; severity: string }[] = [];
  alarmCount = 0;
  safetyChangeCount = 0;
  readonly states: StateClock;
  readonly weather: WeatherStats;
  /** The weather readings of each minute of the span, counted from their heads when the data is read from the tiers (checked against them). */
  readonly weatherMinutes: Uint32Array;
  events = 0;
  first: string | undefined;
  last: string | undefined;
  private lastMs: number;
  /** The clocks' changes, in record order (replayed in ts order by finish()). */
  private readonly changes: ClockChange[] = [];
  /** The minute (`YYYY-MM-DDTHH:MM:`) msOf last parsed, and its ms. */
  private minute = '\u0000';
  private minuteMs = 0;

  /** `readWeather` false: weather readings are only counted per field and slice (the report reads their values from the rollup tiers). */
  constructor(span: FoldSpan, start: StartState, private readonly readWeather = true) {
    this.span = span;
    this.start = start;
    this.lastMs = span.fromMs;
    this.safety = new StateClock(span.fromMs, start.safety);
    this.states = new StateClock(span.fromMs, start.state);
    for (const type of start.stale) this.staleOf(type).clock.set(span.fromMs, 'stale');
    this.weather = new WeatherStats(span.fromMs, span.toMs);
    this.weatherMinutes = new Uint32Array(readWeather ? 0 : Math.ceil((span.toMs - span.fromMs) / MINUTE_MS));
  }

  /** Fold one recorded line (its head already read) of `stream` (`site` or a run id). */
  add(line: string, head: LineHead, stream: string): void {
    const ts = canonicalTs(head.ts);
    const ms = Math.min(this.span.untilMs, Math.max(this.span.fromMs, this.msOf(ts)));
    this.events++;
    this.first ??= ts;
    this.last = ts;
    this.counts.set(head.type, (this.counts.get(head.type) ?? 0) + 1);
    if (stream !== 'site') {
      const run = this.runs.get(stream);
      if (run) {
        run.last = ts;
        run.events++;
      } else this.runs.set(stream, { first: ts, last: ts, events: 1 });
    }
    if (ms - this.lastMs >= this.span.gapMs) this.gaps.push({ fromMs: this.lastMs, toMs: ms });
    else if (ms < this.lastMs) splitGapAt(this.gaps, ms, this.span.gapMs);
    if (ms > this.lastMs) this.lastMs = ms;
    if (head.type === WEATHER) {
      if (!this.readWeather) {
        const minute = Math.floor((ms - this.span.fromMs) / MINUTE_MS);
        if (minute >= 0 && minute < this.weatherMinutes.length) this.weatherMinutes[minute]!++;
        return;
      }
      // Meridian's own lines end with the meta member: data lies between the type and it
      // (the slice is data exactly when it is one JSON value); any other line is scanned whole
      if (!this.weather.add(dataSlice(line), ms)) {
        const data = dataText(line);
        if (data !== undefined) this.weather.add(data, ms);
      }
    } else if (head.type === SAFETY || head.type === ALARM || head.type === STALE || head.type === FRESH || head.type === POCS_STATE || head.type === POCS_STATUS) {
      this.event(head.type, ts, ms, parsedData(line));
    }
  }

  /** The ms of a canonical ts (the minute parsed once per minute: a night has a million lines); an unreadable one counts as the latest time seen. */
  private msOf(ts: string): number {
    if (ts.length !== 24) return this.lastMs;
    if (!ts.startsWith(this.minute)) {
      this.minute = ts.slice(0, 17);
      this.minuteMs = Date.parse(`${this.minute}00.000Z`);
    }
    const digit = (i: number) => ts.charCodeAt(i) - 48;
    return this.minuteMs + digit(17) * 10_000 + digit(18) * 1000 + digit(20) * 100 + digit(21) * 10 + digit(22);
  }

  /** Close the span: the silence after the last event, if long enough; the clocks' changes counted at their ts, the listed verdicts put in ts order. */
  finish(): void {
    if (this.span.untilMs - this.lastMs >= this.span.gapMs) this.gaps.push({ fromMs: this.lastMs, toMs: this.span.untilMs });
    replayChanges(this.changes, this.gaps, () => [this.safety, this.states, ...[...this.stale.values()].map((s) => s.clock)]);
    this.safetyChanges.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  }

  /** A type's staleness clock (fresh from the span's start). */
  private staleOf(type: string): { clock: StateClock; times: number } {
    let held = this.stale.get(type);
    if (!held) {
      held = { clock: new StateClock(this.span.fromMs, 'fresh'), times: 0 };
      this.stale.set(type, held);
    }
    return held;
  }

  private event(type: string, ts: string, ms: number, data: unknown): void {
    const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
    if (type === SAFETY) {
      const verdict = safetyOf(d);
      if (!verdict) return;
      this.changes.push({ ms, clock: this.safety, value: safetyKey(verdict.safe, verdict.reasons) });
      this.safetyChangeCount++;
      if (this.safetyChanges.length < SAFETY_CHANGES_LISTED) this.safetyChanges.push({ ts, ...verdict });
    } else if (type === STALE || type === FRESH) {
      if (typeof d.type !== 'string') return;
      const held = this.staleOf(d.type);
      if (type === STALE) held.times++;
      this.changes.push({ ms, clock: held.clock, value: type === STALE ? 'stale' : 'fresh' });
    } else if (type === ALARM) {
      this.alarmCount++;
      if (this.alarms.length < ALARMS_LISTED && typeof d.id === 'string') {
        this.alarms.push({ ts, id: d.id, from: String(d.from ?? ''), to: String(d.to ?? ''), severity: String(d.severity ?? '') });
      }
    } else {
      const state = pocsState(data);
      if (state !== undefined) this.changes.push({ ms, clock: this.states, value: state });
    }
  }
}

/** The clock key of a verdict: `safe`, or `unsafe` with its reasons. */
export function safetyKey(safe: boolean, reasons: readonly string[]): string {
  return safe ? 'safe' : `unsafe${JSON.stringify(reasons)}`;
}

/** The verdict of a `meridian.safety` event's data, or undefined when it holds none. */
export function safetyOf(d: Record<string, unknown>): { safe: boolean; reasons: string[] } | undefined {
  if (typeof d.safe !== 'boolean') return undefined;
  const reasons = Array.isArray(d.reasons) ? d.reasons.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))) : [];
  return { safe: d.safe, reasons };
}

/** The state a POCS `state` event names: `data.dest` (POCS's transition), `data.state`, or data as a string. */
export function pocsState(data: unknown): string | undefined {
  if (typeof data === 'string') return data || undefined;
  if (!data || typeof data !== 'object') return undefined;
  const d = data as Record<string, unknown>;
  const state = typeof d.dest === 'string' ? d.dest : typeof d.state === 'string' ? d.state : undefined;
  return state === '' || state === UNKNOWN ? undefined : state;
}

const WEATHER_DATA = `${JSON.stringify(WEATHER)},"data":`;
const MINUTE_MS = 60_000;

/** Where `data` lies in a weather line Meridian wrote (`..."type":"weather","data":D,"meta":M}`), or '' when the line is not so spelled. */
function dataSlice(line: string): string {
  const key = WEATHER_DATA;
  const at = line.indexOf(key);
  const end = line.lastIndexOf(',"meta":');
  return at < 0 || end < at ? '' : line.slice(at + key.length, end);
}

/** The `data` member's text of an envelope line, as recorded. */
function dataText(line: string): string | undefined {
  let found: string | undefined;
  try {
    forEachMember(line, (key, span) => { if (key === 'data') found = line.slice(span.start, span.end); });
  } catch { /* a damaged line holds no reading */ }
  return found;
}

/** The decoded `data` of an envelope line (types whose values are flags and names, not measurements). */
function parsedData(line: string): unknown {
  try {
    return (JSON.parse(line) as { data?: unknown }).data;
  } catch {
    return undefined;
  }
}
