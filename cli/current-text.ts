import type { Envelope, JsonValue } from '../lib/wire.js';
import { formatAge, printable } from '../table/format.js';
import { sortRows, toRow } from '../table/rows.js';
import { columnWidths, headerLine, rowLine, styledLine } from '../table/table-lines.js';

// `telemetry current` on a terminal: the view as the console's table (same columns, same
// ages and summaries), or one envelope as a panel. Pure: the clock and width are passed in.

/** What the text depends on besides the readings. */
export interface TextOptions {
  /** Local clock, epoch ms. */
  now: number;
  staleMs: number;
  /** Terminal width. */
  columns: number;
  color: boolean;
}

const bold = (text: string, color: boolean) => (color ? `\x1b[1m${text}\x1b[0m` : text);

/** The table: TYPE, AGE, SEQ, RUN, DATA, one row per type sorted by type; "no readings yet" when empty. */
export function currentTable(current: Readonly<Record<string, Envelope>>, o: TextOptions): string {
  const rows = sortRows(Object.values(current).map((e) => toRow(e, { now: o.now, staleMs: o.staleMs, flashMs: 0, changedAt: new Map() })), 'type');
  if (rows.length === 0) return 'no readings yet\n';
  const widths = columnWidths(Math.max(40, o.columns), rows);
  const lines = [bold(headerLine(widths).trimEnd(), o.color), ...rows.map((r) => styledLine(r, rowLine(r, widths).trimEnd(), !o.color))];
  return `${lines.join('\n')}\n`;
}

/** One envelope: the type, then seq, ts with its age, run id, and data and meta as indented JSON. */
export function envelopePanel(envelope: Envelope, o: Omit<TextOptions, 'columns'>): string {
  const row = toRow(envelope, { now: o.now, staleMs: o.staleMs, flashMs: 0, changedAt: new Map() });
  const age = `(${formatAge(row.ageMs)} ago${row.stale ? ', STALE' : ''})`;
  const tsLine = field('ts', `${printable(envelope.ts)} ${age}`);
  return [
    bold(printable(envelope.type), o.color),
    field('seq', String(envelope.seq)),
    row.stale && o.color ? `\x1b[33m${tsLine}\x1b[0m` : tsLine,
    field('run', printable(row.runId)),
    ...jsonField('data', envelope.data),
    ...jsonField('meta', envelope.meta),
  ].join('\n') + '\n';
}

function field(name: string, value: string): string {
  return `  ${name.padEnd(5)} ${value}`;
}

function jsonField(name: string, value: JsonValue): string[] {
  const [first, ...rest] = printable(JSON.stringify(value, null, 2)).split('\n');
  return [field(name, first!), ...rest.map((line) => `${' '.repeat(8)}${line}`)];
}
