import type { Envelope } from '../lib/wire.js';
import { printable } from '../table/format.js';
import { limitText } from '../lib/max-age.js';
import { indentJson } from '../table/json-layout.js';
import type { Row } from '../table/rows.js';
import type { ConsoleWidgets } from './layout.js';
import { trendLines, type Trend } from './trend.js';

// The detail pane: a sparkline per numeric data field over the last hour, then the selected
// row's whole envelope as formatted JSON. It scrolls; Tab gives it the movement keys (its
// label then starts with "▸").

/** The trend shown above the envelope, and how to draw it. */
export interface DetailTrend {
  trend: Trend | undefined;
  /** Daemon time: the right edge of the sparklines. */
  now: number;
  ascii: boolean;
}

/** The pane's label and text for the selected row (or why there is none: no reading yet, or the filter). */
export function detailText(row: Row | undefined, type: string | undefined, filter = '',
  textOf?: (envelope: Envelope) => string): { label: string; text: string } {
  if (!row) {
    const why = type !== undefined ? `no reading of ${JSON.stringify(type)} yet`
      : filter !== '' ? `no type matches the filter ${JSON.stringify(filter)}` : 'no readings yet';
    return { label: ' detail ', text: why };
  }
  if (!row.envelope) {
    return { label: ` ${printable(row.type)}  MISSING `, text: `no reading of ${JSON.stringify(row.type)} yet; the daemon expects one (it has a max age for it)` };
  }
  const limit = row.limitMs === undefined ? '' : `  max ${limitText(row.limitMs, row.limitFrom)}`;
  const label = ` ${printable(row.type)}  ${row.age}${limit}  seq ${row.seq} `;
  // the daemon's text laid out when known: decoding would show -10.0 as -10
  return { label, text: printable(textOf ? indentJson(textOf(row.envelope)) : JSON.stringify(row.envelope, null, 2)) };
}

/** Lines the pane can scroll down: its text's lines past the visible ones. */
export function detailScrollMax(w: ConsoleWidgets): number {
  const visible = Math.max(0, (w.detail.height as number) - 2);
  return Math.max(0, w.detail.getScrollHeight() - visible);
}

/**
 * Draw the pane (only what changed): the trend lines of the selected type, then its
 * envelope, scrolled `scroll` lines down, its label marked while it has the focus.
 */
export function renderDetail(w: ConsoleWidgets, row: Row | undefined,
  o: { type: string | undefined; filter: string; focused: boolean; scroll: number; textOf?: (e: Envelope) => string }, t: DetailTrend): void {
  const { label, text: envelope } = detailText(row, o.type, o.filter, o.textOf);
  const width = Math.max(10, (w.detail.width as number) - 4);
  const trend = row?.envelope && t.trend?.type === row.type ? trendLines(t.trend, t.now, width, t.ascii) : [];
  const text = trend.length > 0 ? `${trend.join('\n')}\n\n${envelope}` : envelope;
  if (w.detail.getContent() !== text) w.detail.setContent(text);
  w.detail.setLabel(o.focused ? ` ▸${label}` : label);
  w.detail.setScroll(Math.min(o.scroll, detailScrollMax(w)));
}
