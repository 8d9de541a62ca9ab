import { headOfWidth } from '../lib/display-width.js';
import { brailleChart } from '../chart/braille.js';
import { printable } from '../table/format.js';
import { CHART_SPANS, STEP_MS, type ChartData, type ChartSpan } from './chart-keeper.js';
import type { ConsoleWidgets } from './layout.js';

// The chart view (`c`): one numeric field of the selected type at a time (j/k: the next and
// previous field), the mean per rollup bucket drawn in braille as `telemetry plot` draws it
// (chart/braille.ts), times in UTC like the rest of the console. The first line says the field,
// the span and the step the daemon picked; a span without readings says so.

/** Columns the y axis labels are taken to need when the chart's width is asked of the daemon. */
const AXIS_COLUMNS = 8;

/** How the spans are written. */
const SPAN_TEXT: Readonly<Record<ChartSpan, string>> = { '1h': '1 h', '6h': '6 h', '24h': '24 h', '7d': '7 d' };

/** The points' columns the daemon is asked for at a chart box `boxWidth` wide. */
export function chartColumns(boxWidth: number): number {
  return Math.max(10, boxWidth - 2 - AXIS_COLUMNS);
}

/** The field index kept within the fields there are. */
export function fieldAt(data: ChartData | undefined, index: number): number {
  const n = data?.fields.size ?? 0;
  return n === 0 ? 0 : ((index % n) + n) % n;
}

/** The view's lines for a box of `width` x `height` inner cells, at daemon time `now`. */
export function chartLines(data: ChartData | undefined, o: { type: string | undefined; span: ChartSpan; field: number; width: number; height: number; now: number }): string[] {
  const span = `last ${SPAN_TEXT[o.span]}`;
  if (o.type === undefined) return ['no type selected: move to a row first'];
  const type = printable(o.type);
  if (!data || data.loading) return [`${type}  ${span}  reading...`];
  if (data.problem !== undefined) return [`${type}  ${span}`, printable(data.problem)];
  const names = [...data.fields.keys()].sort();
  const step = data.step === undefined ? '' : `  step ${data.step}`;
  if (names.length === 0) return [`${type}  ${span}${step}`, `no numeric readings of ${type} in the ${span}`];
  const at = fieldAt(data, o.field);
  const name = names[at]!;
  const from = o.now - CHART_SPANS[o.span];
  const points = data.fields.get(name)!.filter((b) => b.s >= from - stepMs(data)).map((b) => [b.s, b.mean] as const);
  const title = headOfWidth(`${printable(name)} (${at + 1}/${names.length})  ${span}  step ${data.step}  mean, UTC`, o.width);
  if (points.length === 0) return [title, `no readings of ${printable(name)} in the ${span}`];
  const chart = brailleChart([{ name, points, breakMs: 1.5 * stepMs(data) }], { width: o.width, height: Math.max(4, o.height - 1), zone: 'utc', from, to: o.now });
  return [title, ...chart];
}

/** The length of the chart's buckets (a night as 25 h: the longest, so that a DST night's neighbours are joined). */
function stepMs(data: ChartData): number {
  return data.step === 'night' ? 25 * 3_600_000 : STEP_MS[data.step ?? '1m'];
}

/** The box's label: the keys of the view. */
export const CHART_LABEL = ' chart  1:1h 6:6h 2:24h 7:7d  j/k field  c close ';

/** Draw the view into the chart box (only when its text changed). */
export function renderChart(w: ConsoleWidgets, data: ChartData | undefined, o: { type: string | undefined; span: ChartSpan; field: number; now: number }): void {
  const width = Math.max(10, (w.chart.width as number) - 2);
  const height = Math.max(2, (w.chart.height as number) - 2);
  const text = chartLines(data, { ...o, width, height }).join('\n');
  if (w.chart.getContent() !== text) w.chart.setContent(text);
  w.chart.setLabel(CHART_LABEL.length <= width - 2 ? CHART_LABEL : ' chart ');
}
