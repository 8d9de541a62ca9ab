import type { Envelope } from '../lib/wire.js';
import type { SortOrder } from '../table/rows.js';
import { columnWidths, headerLine, rowLine, styledLine, type ColumnWidths } from '../table/table-lines.js';
import { placeMarker, type ConsoleWidgets } from './layout.js';
import { belowText, positionText, type ScreenModel } from './screen-model.js';

// The table of event types (blessed-contrib table): only the rows in sight are laid out and
// handed to blessed (100,000 types cost the rows of one page), the selection drawn on its
// row, and the borders say what is out of sight: the position (`12/300`, rows above) on
// the top border, `+N more (2 stale) ↓` on the bottom one.

/** The table's renderer; it remembers the lines drawn last so an unchanged table is left alone. */
export function tableRenderer(w: ConsoleWidgets) {
  let drawn: string[] = [];
  // the column widths of a set of rows: laid out once, not on every one-second redraw
  let laidOut: { layout: number; rows: number; inner: number; widths: ColumnWidths } | undefined;
  /** Draw the rows in sight (only when a line changed), the selection and the border markers. */
  return function renderTable(model: ScreenModel, order: SortOrder, page: number, inner: number, textOf?: (e: Envelope) => string): void {
    if (laidOut?.layout !== model.layout || laidOut.rows !== model.rows.length || laidOut.inner !== inner) {
      laidOut = { layout: model.layout, rows: model.rows.length, inner, widths: columnWidths(inner, model.rows) };
    }
    const widths = laidOut.widths;
    const inSight = model.rows.slice(model.top, model.top + page);
    const palette = w.theme.palette;
    const lines = [` ${headerLine(widths, order)}`, ...inSight.map((r) => styledLine(r, rowLine(r, widths, palette, textOf), palette))];
    if (lines.length !== drawn.length || lines.some((l, i) => l !== drawn[i])) {
      w.table.options.columnWidth = [lines.reduce((n, l) => Math.max(n, l.length), 1)];
      w.table.setData({ headers: [lines[0]!], data: lines.slice(1).map((l) => [l]) });
      drawn = lines;
    }
    const selected = model.selected - model.top;
    if (inSight.length > 0 && w.table.rows.selected !== selected) w.table.rows.select(selected);
    placeMarker(w, w.position, positionText(model));
    placeMarker(w, w.more, belowText(model.below));
  };
}
