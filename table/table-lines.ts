import { displayWidth } from './display-width.js';
import { fitRight, fitText } from './format.js';
import type { Row } from './rows.js';

// The table's columns laid out in terminal columns, for the console and `telemetry current`.
// The summary (DATA) gives way first when the terminal is narrow, then TYPE down to a
// minimum. Pure: widths in, strings out.

/** Column widths in terminal columns; `data` 0 means the DATA column is hidden. */
export interface ColumnWidths {
  type: number;
  age: number;
  seq: number;
  run: number;
  data: number;
}

/** Fits "59m59s STALE". */
export const AGE_WIDTH = 12;
const MARK = 2;
const GAP = 2;
const MIN_DATA = 8;
const MIN_TYPE = 6;
const MAX_TYPE = 28;
const MAX_RUN = 12;

function widest(values: string[], min: number, max: number): number {
  return Math.min(max, values.reduce((w, v) => Math.max(w, displayWidth(v)), min));
}

/** Widths for rows in a table `inner` columns wide. */
export function columnWidths(inner: number, rows: readonly Row[]): ColumnWidths {
  const seq = widest(rows.map((r) => String(r.seq)), 3, 12);
  const run = widest(rows.map((r) => r.runId), 3, MAX_RUN);
  let type = widest(rows.map((r) => r.type), 4, MAX_TYPE);
  const fixed = MARK + AGE_WIDTH + GAP + seq + GAP + run;
  let data = inner - fixed - GAP - type - GAP;
  if (data < MIN_DATA) {
    data = 0;
    type = Math.max(MIN_TYPE, Math.min(type, inner - fixed - GAP));
  }
  return { type, age: AGE_WIDTH, seq, run, data };
}

function join(mark: string, cells: [string, string, string, string, string], w: ColumnWidths): string {
  const [type, age, seq, run, data] = cells;
  const line = `${mark.padEnd(MARK)}${fitText(type, w.type)}${' '.repeat(GAP)}${fitText(age, w.age)}`
    + `${' '.repeat(GAP)}${fitRight(seq, w.seq)}${' '.repeat(GAP)}${fitText(run, w.run)}`;
  return w.data > 0 ? `${line}${' '.repeat(GAP)}${fitText(data, w.data)}` : line;
}

/** The column titles. */
export function headerLine(w: ColumnWidths): string {
  return join('', ['TYPE', 'AGE', 'SEQ', 'RUN', 'DATA'], w);
}

/** One row: a "*" mark while it is highlighted as just changed, then the cells. */
export function rowLine(row: Row, w: ColumnWidths): string {
  return join(row.changed ? '*' : '', [row.type, row.age, String(row.seq), row.runId, row.summary], w);
}

/** One row's line with its highlight (ANSI SGR): a change in bold (green in colour), stale rows yellow in colour. */
export function styledLine(row: Row, line: string, noColor: boolean): string {
  if (row.changed) return noColor ? `\x1b[1m${line}\x1b[0m` : `\x1b[1;32m${line}\x1b[0m`;
  if (row.stale && !noColor) return `\x1b[33m${line}\x1b[0m`;
  return line;
}
