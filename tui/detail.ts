import { printable } from '../table/format.js';
import type { Row } from '../table/rows.js';
import type { ConsoleWidgets } from './layout.js';

// The detail pane: the selected row's whole envelope as formatted JSON. It scrolls; Tab
// gives it the movement keys (its label then starts with "▸").

/** The pane's label and text for the selected row (or why there is none: no reading yet, or the filter). */
export function detailText(row: Row | undefined, type: string | undefined, filter = ''): { label: string; text: string } {
  if (!row) {
    const why = type !== undefined ? `no reading of ${JSON.stringify(type)} yet`
      : filter !== '' ? `no type matches the filter ${JSON.stringify(filter)}` : 'no readings yet';
    return { label: ' detail ', text: why };
  }
  if (!row.envelope) {
    return { label: ` ${printable(row.type)}  MISSING `, text: `no reading of ${JSON.stringify(row.type)} yet; the daemon expects one (it has a max age for it)` };
  }
  const label = ` ${printable(row.type)}  ${row.age}  seq ${row.seq} `;
  return { label, text: printable(JSON.stringify(row.envelope, null, 2)) };
}

/** Lines the pane can scroll down: its text's lines past the visible ones. */
export function detailScrollMax(w: ConsoleWidgets): number {
  const visible = Math.max(0, (w.detail.height as number) - 2);
  return Math.max(0, w.detail.getScrollHeight() - visible);
}

/** Draw the pane (only what changed), scrolled `scroll` lines down, its label marked while it has the focus. */
export function renderDetail(w: ConsoleWidgets, row: Row | undefined, o: { type: string | undefined; filter: string; focused: boolean; scroll: number }): void {
  const { label, text } = detailText(row, o.type, o.filter);
  if (w.detail.getContent() !== text) w.detail.setContent(text);
  w.detail.setLabel(o.focused ? ` ▸${label}` : label);
  w.detail.setScroll(Math.min(o.scroll, detailScrollMax(w)));
}
