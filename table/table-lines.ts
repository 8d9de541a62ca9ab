import { charWidth, displayWidth } from '../lib/display-width.js';
import { fitRight, fitText, printable, summaryParts } from './format.js';
import type { Envelope } from '../lib/wire.js';
import type { Palette } from './palette.js';
import type { Row, SortOrder } from './rows.js';

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

function widest(values: Iterable<string>, min: number, max: number): number {
  let w = min;
  for (const v of values) if (w < max) w = Math.max(w, displayWidth(v));
  return Math.min(max, w);
}

function* mapped<T>(rows: readonly Row[], f: (r: Row) => T): Iterable<T> {
  for (const r of rows) yield f(r);
}

/** Widths for rows in a table `inner` columns wide. */
export function columnWidths(inner: number, rows: readonly Row[]): ColumnWidths {
  const seq = widest(mapped(rows, (r) => String(r.seq ?? '-')), 4, 12);
  const run = widest(mapped(rows, (r) => r.runId), 3, MAX_RUN);
  let type = widest(mapped(rows, (r) => r.type), 5, MAX_TYPE);
  const fixed = MARK + AGE_WIDTH + GAP + seq + GAP + run;
  let data = inner - fixed - GAP - type - GAP;
  if (data < MIN_DATA) {
    data = 0;
    type = Math.max(MIN_TYPE, Math.min(type, inner - fixed - GAP));
  }
  return { type, age: AGE_WIDTH, seq, run, data };
}

function join(mark: string, cells: [string, string, string, string], data: string, w: ColumnWidths): string {
  const [type, age, seq, run] = cells;
  const line = `${mark.padEnd(MARK)}${fitText(type, w.type)}${' '.repeat(GAP)}${fitText(age, w.age)}`
    + `${' '.repeat(GAP)}${fitRight(seq, w.seq)}${' '.repeat(GAP)}${fitText(run, w.run)}`;
  return w.data > 0 ? `${line}${' '.repeat(GAP)}${data}` : line;
}

/** The mark of the sorted column: ▲ when the smallest value is on top, ▼ when the largest is. */
export function sortMark(order: SortOrder): string {
  // type A-Z and age newest first (smallest age) are ascending; seq highest first is not
  const ascending = order.key !== 'seq';
  return ascending !== order.reverse ? '▲' : '▼';
}

/** The column titles; with `order`, the sorted column carries its mark. */
export function headerLine(w: ColumnWidths, order?: SortOrder): string {
  const title = (name: string, key: string) => (order?.key === key ? `${name}${sortMark(order)}` : name);
  return join('', [title('TYPE', 'type'), title('AGE', 'age'), title('SEQ', 'seq'), 'RUN'], fitText('DATA', w.data), w);
}

/**
 * One row: its mark ("*" its value changed since the last frame drawn), then the cells; with
 * a palette, the changed parts of DATA highlighted.
 */
export function rowLine(row: Row, w: ColumnWidths, palette?: Palette, textOf?: (envelope: Envelope) => string): string {
  const mark = row.change ? '*' : '';
  return join(mark, [row.type, row.age, row.seq === undefined ? '-' : String(row.seq), row.runId], dataCell(row, w.data, palette, textOf), w);
}

/** One row's line with its palette's marks: stale rows, then rows whose value changed. */
export function styledLine(row: Row, line: string, palette: Palette): string {
  const [on, off] = row.stale ? palette.stale : row.change ? palette.changed : ['', ''];
  return on === '' ? line : `${on}${line}${off}`;
}

/** The DATA cell, exactly `width` columns: the summary, the changed parts highlighted. */
function dataCell(row: Row, width: number, palette: Palette | undefined, textOf: ((e: Envelope) => string) | undefined): string {
  if (width <= 0) return '';
  if (!row.envelope) return fitText('(no reading)', width);
  // from the daemon's text when known: decoding would show -10.0 as -10
  const parts = summaryParts(row.envelope.data, textOf?.(row.envelope));
  const [on, off] = palette && row.change ? palette.highlight : ['', ''];
  if (on === '') return fitText(parts.map((p) => p.text).join(' '), width);
  const keys = row.change!.keys;
  // each character with whether it is lit; the spaces between parts never are
  const chars: Array<[string, boolean]> = [];
  for (const [i, part] of parts.entries()) {
    if (i > 0) chars.push([' ', false]);
    const lit = keys === undefined || (part.key !== undefined && keys.has(part.key));
    for (const ch of printable(part.text).replace(/[\t\n]/g, ' ')) chars.push([ch, lit]);
  }
  const total = chars.reduce((n, [ch]) => n + charWidth(ch.codePointAt(0)!), 0);
  const room = total <= width ? width : width - 1;
  let out = '';
  let used = 0;
  let lit = false;
  for (const [ch, chLit] of chars) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (used + cw > room) break;
    if (chLit !== lit) out += chLit ? on : off;
    lit = chLit;
    out += ch;
    used += cw;
  }
  if (lit) out += off;
  if (total > width) {
    out += '…';
    used++;
  }
  return out + ' '.repeat(width - used);
}
