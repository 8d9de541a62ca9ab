import { headOfWidth } from '../lib/display-width.js';
import { boundsOf, fractionOf, joinedRuns, niceTicks, timeLabel, timeTicks, valueLabels, type ChartOptions, type Series } from './series.js';

// A chart for the terminal in braille (each character cell holds 2x4 dots): a y axis with
// round values, the series drawn as lines, an x axis with times. Pure: lines of text out.

const BRAILLE = 0x2800;
// dot bits by [row][column] within a cell
const DOTS = [[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]];

/** The chart as `height` lines of at most `width` characters (axes and labels included), then a legend when there are several series. */
export function brailleChart(series: readonly Series[], options: ChartOptions): string[] {
  const { x0, x1, y0, y1 } = boundsOf(series, options);
  const plotRows = Math.max(2, options.height - 2);
  const ticks = niceTicks(y0, y1, Math.max(2, Math.floor(plotRows / 2)));
  const labels = valueLabels(ticks);
  const labelWidth = Math.max(...labels.map((l) => l.length), 1);
  const cols = Math.max(4, options.width - labelWidth - 2);
  const cells = Array.from({ length: plotRows }, () => new Uint8Array(cols));
  const w = cols * 2;
  const h = plotRows * 4;
  const toX = (x: number) => Math.round(((x - x0) / (x1 - x0)) * (w - 1));
  const toY = (y: number) => Math.round((1 - fractionOf(y, y0, y1)) * (h - 1));
  const dot = (px: number, py: number) => {
    if (px < 0 || py < 0 || px >= w || py >= h) return;
    cells[py >> 2]![px >> 1]! |= DOTS[py & 3]![px & 1]!;
  };
  for (const run of series.flatMap(joinedRuns)) {
    let prev: [number, number] | undefined;
    for (const [x, y] of run) {
      const p: [number, number] = [toX(x), toY(y)];
      if (prev) line(prev, p, dot);
      else dot(p[0], p[1]);
      prev = p;
    }
  }
  const rowOfTick = new Map(ticks.map((t, i) => [Math.min(plotRows - 1, Math.max(0, Math.floor(toY(t) / 4))), labels[i]!]));
  const out = cells.map((row, r) => `${(rowOfTick.get(r) ?? '').padStart(labelWidth)} ┤${String.fromCharCode(...Array.from(row, (b) => BRAILLE + b))}`);
  out.push(`${' '.repeat(labelWidth)} └${'─'.repeat(cols)}`);
  out.push(`${' '.repeat(labelWidth + 2)}${timeAxis(x0, x1, cols, options.zone)}`);
  if (series.length > 1) out.push(headOfWidth(`${' '.repeat(labelWidth + 2)}${series.map((s) => s.name).join(', ')}`, options.width));
  return out;
}

/** Round time labels along `cols` characters, each at its tick, none overlapping. */
function timeAxis(x0: number, x1: number, cols: number, zone: string): string {
  const span = x1 - x0;
  const width = timeLabel(x0, span, zone).length;
  const chars = Array<string>(cols + width).fill(' ');
  let free = 0;
  for (const ms of timeTicks(x0, x1, Math.max(2, Math.floor(cols / (width + 3))), zone)) {
    const at = Math.round(((ms - x0) / span) * (cols - 1));
    if (at < free || at + width > cols + 1) continue;
    [...timeLabel(ms, span, zone)].forEach((c, j) => { chars[at + j] = c; });
    free = at + width + 2;
  }
  return chars.join('').trimEnd();
}

/** The dots of a straight line from a to b (Bresenham). */
function line(a: [number, number], b: [number, number], dot: (x: number, y: number) => void): void {
  let [x, y] = a;
  const dx = Math.abs(b[0] - x);
  const dy = -Math.abs(b[1] - y);
  const sx = x < b[0] ? 1 : -1;
  const sy = y < b[1] ? 1 : -1;
  let err = dx + dy;
  for (;;) {
    dot(x, y);
    if (x === b[0] && y === b[1]) return;
    const e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y += sy;
    }
  }
}
