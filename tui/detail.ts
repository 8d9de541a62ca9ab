import { printable } from './format.js';
import type { Row } from './rows.js';
import type { ConsoleWidgets } from './layout.js';

// The detail pane: the selected row's whole envelope as formatted JSON.

/** The pane's label and text for the selected row (or why there is none). */
export function detailText(row: Row | undefined, type: string | undefined): { label: string; text: string } {
  if (!row) {
    return { label: ' detail ', text: type === undefined ? 'no readings yet' : `no reading of ${JSON.stringify(type)} yet` };
  }
  const label = ` ${printable(row.type)}  ${row.age}  seq ${row.seq} `;
  return { label, text: printable(JSON.stringify(row.envelope, null, 2)) };
}

/** Draw the pane (only what changed). */
export function renderDetail(w: ConsoleWidgets, row: Row | undefined, type: string | undefined): void {
  const { label, text } = detailText(row, type);
  if (w.detail.getContent() !== text) w.detail.setContent(text);
  w.detail.setLabel(label);
}
