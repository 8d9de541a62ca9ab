import { DateTime } from 'luxon';

// What a chart is drawn from, and the scales both renderers share: nice value ticks and time
// labels in the zone asked for (local or UTC).

/** One line of a chart: a name and its points [epoch ms, value], in time order. */
export interface Series {
  name: string;
  points: readonly (readonly [number, number])[];
  /** Points further apart than this (ms) are not joined: the time between held no reading. */
  breakMs?: number;
}

/** The runs of a series' points that are drawn joined (split where they lie more than `breakMs` apart). */
export function joinedRuns(s: Series): (readonly (readonly [number, number])[])[] {
  const runs: (readonly [number, number])[][] = [];
  let run: (readonly [number, number])[] = [];
  for (const p of s.points) {
    const last = run.at(-1);
    if (last && s.breakMs !== undefined && p[0] - last[0] > s.breakMs) {
      runs.push(run);
      run = [];
    }
    run.push(p);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** A chart's size and how its times are written. */
export interface ChartOptions {
  width: number;
  height: number;
  /** A luxon zone: 'utc', 'system', or an IANA name. */
  zone: string;
  title?: string;
  /** The time axis from and to (epoch ms); default: the points' own first and last. */
  from?: number;
  to?: number;
}

/** The box every point of every series lies in (a flat or empty box is widened). */
export function boundsOf(series: readonly Series[], options: { from?: number; to?: number } = {}): { x0: number; x1: number; y0: number; y1: number } {
  const box = pointBounds(series);
  if (options.from !== undefined) box.x0 = options.from;
  if (options.to !== undefined) box.x1 = options.to;
  if (box.x1 <= box.x0) box.x1 = box.x0 + 1;
  return box;
}

function pointBounds(series: readonly Series[]): { x0: number; x1: number; y0: number; y1: number } {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const s of series) {
    for (const [x, y] of s.points) {
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x0 === Infinity) return { x0: 0, x1: 1, y0: 0, y1: 1 };
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) [y0, y1] = flatRange(y0);
  return { x0, x1, y0, y1 };
}

// A range of one value widened around it: by half its size (1 for 0), kept within a double's
// range (the largest doubles widen one way only).
function flatRange(y: number): [number, number] {
  const d = y === 0 ? 1 : Math.abs(y) / 2;
  return [Math.max(y - d, -Number.MAX_VALUE), Math.min(y + d, Number.MAX_VALUE)];
}

/** Where `v` lies between `lo` and `hi` (0 at lo, 1 at hi), without overflow when hi - lo is past a double's range (+-1e308). */
export function fractionOf(v: number, lo: number, hi: number): number {
  const span = hi - lo;
  if (Number.isFinite(span)) return (v - lo) / span;
  return (v / 2 - lo / 2) / (hi / 2 - lo / 2);
}

/** About `count` round values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten), for any finite range: +-1e308 or +-1e-300 alike. */
export function niceTicks(lo: number, hi: number, count: number): number[] {
  // past 1e200 or below 1e-200: worked out on lo and hi brought near 1 (by a power of ten), so
  // that no step overflows or underflows (nearer 1 the range is taken as it is: no rounding added)
  const magnitude = Math.floor(Math.log10(Math.max(Math.abs(lo), Math.abs(hi)) || 1));
  const exponent = Math.abs(magnitude) > 200 ? magnitude : 0;
  const half = Math.trunc(exponent / 2);
  const down = (v: number) => v / 10 ** half / 10 ** (exponent - half);
  const up = (v: number) => v * 10 ** half * 10 ** (exponent - half);
  const [a, b] = [down(lo), down(hi)];
  const raw = (b - a) / Math.max(1, count);
  if (!(raw > 0)) return [lo];
  // a range within the last digits a double holds (0.3 and 0.30000000000000004): no round step
  // between them survives the 12 digits ticks are kept to, and a step below a double's spacing
  // never moves the count on; the ends are the ticks
  if (raw < Math.max(Math.abs(a), Math.abs(b)) * 1e-10) return [lo, hi];
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  const first = Math.ceil(a / step);
  for (let k = 0; (first + k) * step <= b + step * 1e-9 && k <= 10 * Math.max(1, count); k++) {
    const v = Number(up(Number(((first + k) * step).toPrecision(12))).toPrecision(12));
    if (Number.isFinite(v)) ticks.push(v);
  }
  return ticks;
}

/** Axis labels of `ticks`: 6 significant digits, more when fewer would write two ticks alike (101325.001 and 101325.002). */
export function valueLabels(ticks: readonly number[]): string[] {
  for (let digits = 6; digits < 17; digits++) {
    const labels = ticks.map((v) => String(Number(v.toPrecision(digits))));
    if (new Set(labels).size === new Set(ticks).size) return labels;
  }
  return ticks.map(String);
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
// round steps for time ticks
const DAY = 24 * HOUR;
const TIME_STEPS = [MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY];

/** At most about `count` round times in [x0, x1] (local whole minutes, hours or days in `zone`, DST included), in order. */
export function timeTicks(x0: number, x1: number, count: number, zone: string): number[] {
  const step = TIME_STEPS.find((s) => (x1 - x0) / s <= Math.max(1, count - 1));
  const ticks: number[] = [];
  if (step !== undefined && step < DAY) {
    // every local minute whose minute of the day is a multiple of the step (steps divide a day)
    const every = step / MINUTE;
    for (let t = Math.ceil(x0 / MINUTE) * MINUTE; t <= x1; t += MINUTE) {
      const dt = DateTime.fromMillis(t, { zone });
      if ((dt.hour * 60 + dt.minute) % every === 0) ticks.push(t);
    }
    return ticks;
  }
  const days = step === undefined ? Math.ceil((x1 - x0) / Math.max(1, count - 1) / DAY) : step / DAY;
  let t = DateTime.fromMillis(x0, { zone }).startOf('day');
  if (t.toMillis() < x0) t = t.plus({ days: 1 });
  for (; t.toMillis() <= x1; t = t.plus({ days })) ticks.push(t.toMillis());
  return ticks;
}

/** A time as an axis label in `zone`: HH:mm within two days' span, else MM-dd HH:mm. */
export function timeLabel(ms: number, spanMs: number, zone: string): string {
  const dt = DateTime.fromMillis(ms, { zone });
  return dt.toFormat(spanMs <= 2 * 86_400_000 ? 'HH:mm' : 'LL-dd HH:mm');
}
