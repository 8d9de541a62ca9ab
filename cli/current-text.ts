import { memberText } from '../client/answer-text.js';
import type { CurrentAnswer, Envelope } from '../lib/wire.js';
import { indentJson } from '../table/json-layout.js';
import { formatAge, printable } from '../table/format.js';
import { limitText } from '../lib/max-age.js';
import type { Palette } from '../table/palette.js';
import { buildRows, toRow, type Judge } from '../table/rows.js';
import { answerJudge } from './current-judge.js';
import { columnWidths, headerLine, rowLine, styledLine } from '../table/table-lines.js';

// `telemetry current` on a terminal: the view as the console's table (same columns, same
// ages and summaries, stale and missing readings on top), or one envelope as a panel. Ages
// and limits are the daemon's (its `freshness`); `--max-age` overrides the limits. Pure.

/** What the text depends on besides the answer. */
export interface TextOptions {
  /** Local clock, epoch ms (ages of a daemon that sends no freshness). */
  now: number;
  /** `--max-age` in ms: the limit of every type instead of the daemon's. */
  limitMs: number | undefined;
  /** Terminal width. */
  columns: number;
  palette: Palette;
  /** Each reading as the daemon sent it (its data summarised as spelled), when known. */
  textOf?: (envelope: Envelope) => string;
}

/** The table: TYPE, AGE, SEQ, RUN, DATA; stale rows on top, then by type; "no readings yet" when empty. */
export function currentTable(answer: CurrentAnswer, o: TextOptions): string {
  const missing = Object.keys(answer.freshness ?? {}).filter((type) => !Object.hasOwn(answer.current, type));
  const rows = buildRows(answer.current, { judge: answerJudge(answer, o), missing, filter: '', order: { key: 'type', reverse: false } });
  if (rows.length === 0) return 'no readings yet\n';
  const widths = columnWidths(Math.max(40, o.columns), rows);
  const [on, off] = o.palette.header;
  const header = headerLine(widths).trimEnd();
  const lines = [on ? `${on}${header}${off}` : header, ...rows.map((r) => styledLine(r, rowLine(r, widths, undefined, o.textOf).trimEnd(), o.palette))];
  return `${lines.join('\n')}\n`;
}

/**
 * One envelope: the type, then seq, ts with its age, its limit when one applies, run id, and data and meta as indented
 * JSON. With `envelopeText` (the envelope as the daemon sent it) data and meta are laid out
 * from it, every number and escape as spelled.
 */
export function envelopePanel(envelope: Envelope, judge: Judge, o: Pick<TextOptions, 'palette'>, envelopeText?: string): string {
  const row = toRow(envelope.type, envelope, judge);
  const age = `(${row.ageMs === undefined ? '?' : formatAge(row.ageMs)} ago${row.stale ? ', STALE' : ''})`;
  const tsLine = field('ts', `${printable(envelope.ts)} ${age}`);
  const [on, off] = o.palette.header;
  const [staleOn, staleOff] = row.stale ? o.palette.stale : ['', ''];
  return [
    `${on}${printable(envelope.type)}${off}`,
    field('seq', String(envelope.seq)),
    `${staleOn}${tsLine}${staleOff}`,
    ...(row.limitMs === undefined ? [] : [field('limit', limitText(row.limitMs, row.limitFrom))]),
    field('run', printable(row.runId)),
    ...jsonField('data', (envelopeText && memberText(envelopeText, 'data')) ?? JSON.stringify(envelope.data)),
    ...jsonField('meta', (envelopeText && memberText(envelopeText, 'meta')) ?? JSON.stringify(envelope.meta)),
  ].join('\n') + '\n';
}

function field(name: string, value: string): string {
  return `  ${name.padEnd(5)} ${value}`;
}

function jsonField(name: string, json: string): string[] {
  const [first, ...rest] = printable(indentJson(json)).split('\n');
  return [field(name, first!), ...rest.map((line) => `${' '.repeat(8)}${line}`)];
}
