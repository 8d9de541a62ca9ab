import type { Envelope, JsonValue } from '../lib/wire.js';
import { displayWidth } from '../lib/display-width.js';
import { fitText } from '../table/format.js';
import { sparkline, type Point } from './sparkline.js';

// The trends of the selected type: one series per numeric field of `data` over the last hour,
// seeded from GET /history and extended with each new reading. Pure: readings and times in.

/** How far back the trends go. */
export const TREND_WINDOW_MS = 3_600_000;
/** At most this many fields get a line. */
const MAX_FIELDS = 6;
/** At most this many points per field are kept (a fast type: ~1 per second for an hour). */
const MAX_POINTS = 4000;

/** At most this many readings are remembered as already added (the oldest forgotten first). */
const MAX_SEEN = 4 * MAX_POINTS;

/** The series of one type: field -> points (oldest first), and the readings already in them (run:seq -> time). */
export interface Trend {
  type: string;
  fields: Map<string, Point[]>;
  seen: Map<string, number>;
  /** Still reading the last hour from the daemon. */
  loading: boolean;
}

/** An empty trend for `type`. */
export function emptyTrend(type: string): Trend {
  return { type, fields: new Map(), seen: new Map(), loading: true };
}

/** The numeric fields of `data`: `value` for a number, `key` (nested `a.b`) for numbers inside an object. */
export function numericFields(data: JsonValue, prefix = ''): [string, number][] {
  if (typeof data === 'number') return [[prefix || 'value', data]];
  if (data === null || typeof data !== 'object' || Array.isArray(data) || prefix.split('.').length >= 2) return [];
  return Object.entries(data).flatMap(([key, value]) => numericFields(value, prefix ? `${prefix}.${key}` : key));
}

/** Add readings of the trend's type (each once, by run and seq), dropping points older than the window before `now`. */
export function extendTrend(trend: Trend, envelopes: readonly Envelope[], now: number): Trend {
  const from = now - TREND_WINDOW_MS;
  for (const e of envelopes) {
    const key = `${typeof e.meta.run_id === 'string' ? e.meta.run_id : ''}:${e.seq}`;
    const t = Date.parse(e.ts);
    if (e.type !== trend.type || trend.seen.has(key) || !(t >= from)) continue;
    trend.seen.set(key, t);
    for (const [field, v] of numericFields(e.data)) {
      const points = trend.fields.get(field) ?? [];
      if (!trend.fields.has(field)) {
        if (trend.fields.size >= MAX_FIELDS) continue;
        trend.fields.set(field, points);
      }
      points.push({ t, v });
    }
  }
  // a type that keeps posting: forget readings past the window, and the oldest past the cap
  for (const [key, t] of trend.seen) {
    if (t >= from && trend.seen.size <= MAX_SEEN) break;
    trend.seen.delete(key);
  }
  for (const points of trend.fields.values()) {
    points.sort((a, b) => a.t - b.t);
    const old = points.findIndex((p) => p.t >= from);
    points.splice(0, old === -1 ? points.length : Math.max(old, points.length - MAX_POINTS));
  }
  return trend;
}

/** The trend lines for a pane `width` columns wide: field, sparkline, then `min..max  last`. */
export function trendLines(trend: Trend | undefined, now: number, width: number, ascii: boolean): string[] {
  if (!trend) return [];
  const fields = [...trend.fields].filter(([, points]) => points.length > 0);
  if (fields.length === 0) return [];
  const label = Math.min(16, Math.max(...fields.map(([f]) => displayWidth(f))));
  const lines = fields.map(([field, points]) => {
    const values = points.map((p) => p.v);
    const stats = ` ${short(Math.min(...values))}..${short(Math.max(...values))}  ${short(values.at(-1)!)}`;
    const chart = sparkline(points, { from: now - TREND_WINDOW_MS, to: now, width: width - label - 1 - stats.length, ascii });
    return `${fitText(field, label)} ${chart}${stats}`;
  });
  return [`last hour${trend.loading ? ' (reading...)' : ''}:`, ...lines];
}

/** A number in at most 6 significant digits. */
function short(n: number): string {
  return Number(n.toPrecision(6)).toString();
}
