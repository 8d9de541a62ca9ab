import { printable } from '../table/format.js';
import type { Row } from '../table/rows.js';
import type { ConsoleWidgets } from './layout.js';

// The detail pane: the selected row's whole envelope as formatted JSON.

/** The pane's label and text for the selected row (or why there is none: no reading yet, or the filter). */
export function detailText(row: Row | undefined, type: string | undefined, filter = ''): { label: string; text: string } {
  if (!row) {
    const why = type !== undefined ? `no reading of ${JSON.stringify(type)} yet`
      : filter !== '' ? `no type matches the filter ${JSON.stringify(filter)}` : 'no readings yet';
    return { label: ' detail ', text: why };
  }
  const label = ` ${printable(row.type)}  ${row.age}  seq ${row.seq} `;
  return { label, text: printable(JSON.stringify(row.envelope, null, 2)) };
}

/** Draw the pane (only what changed). */
export function renderDetail(w: ConsoleWidgets, row: Row | undefined, type: string | undefined, filter: string): void {
  const { label, text } = detailText(row, type, filter);
  if (w.detail.getContent() !== text) w.detail.setContent(text);
  w.detail.setLabel(label);
}
