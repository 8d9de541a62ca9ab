import type { Row } from '../table/rows.js';
import { columnWidths, headerLine, rowLine, styledLine } from '../table/table-lines.js';
import type { ConsoleWidgets } from './layout.js';

// The table of event types (blessed-contrib table): rows laid out and styled by
// table/table-lines, and the selection kept on its type.

/** The table's renderer; it remembers the lines drawn last so an unchanged table is left alone. */
export function tableRenderer(w: ConsoleWidgets, noColor: boolean) {
  let drawn: string[] = [];
  /** Draw the rows (only when a line changed) and select the row at index `selected`. */
  return function renderTable(rows: readonly Row[], selected: number, inner: number): void {
    const widths = columnWidths(inner, rows);
    const lines = [` ${headerLine(widths)}`, ...rows.map((r) => styledLine(r, rowLine(r, widths), noColor))];
    if (lines.length !== drawn.length || lines.some((l, i) => l !== drawn[i])) {
      w.table.options.columnWidth = [lines.reduce((n, l) => Math.max(n, l.length), 1)];
      w.table.setData({ headers: [lines[0]!], data: lines.slice(1).map((l) => [l]) });
      drawn = lines;
    }
    if (rows.length > 0 && w.table.rows.selected !== selected) w.table.rows.select(selected);
  };
}
