import { memberText } from '../client/answer-text.js';
import { scanMembers } from '../lib/json-text.js';
import type { Envelope } from '../lib/wire.js';
import { fitRight, fitText, summarizeData } from '../table/format.js';
import { runIdOf } from '../table/rows.js';

// `telemetry history` output: a table on a terminal, CSV with --csv. Pure: rows in, text out.

/** Column widths of the history table: TS and SEQ and RUN fixed, DATA the rest of the terminal. */
export interface HistoryColumns {
  seq: number;
  run: number;
  data: number;
}

const TS_WIDTH = 24;
const GAP = '  ';

/** Widths for a terminal `columns` wide, sized on the first page of events. */
export function historyColumns(columns: number, events: readonly Envelope[]): HistoryColumns {
  const seq = Math.min(12, Math.max(3, ...events.map((e) => String(e.seq).length)));
  const run = Math.min(12, Math.max(3, ...events.map((e) => runIdOf(e).length)));
  return { seq, run, data: Math.max(0, columns - TS_WIDTH - seq - run - 3 * GAP.length) };
}

/** The table's title line. */
export function historyHeader(w: HistoryColumns): string {
  return line('TS', 'SEQ', 'RUN', 'DATA', w);
}

/** One event as a table line: its ts as stored, seq, run id (or "site"), and the data summary (as spelled in `text`, the event as sent, when given). */
export function historyRow(e: Envelope, w: HistoryColumns, text?: string): string {
  return line(e.ts, String(e.seq), runIdOf(e), summarizeData(e.data, text), w);
}

function line(ts: string, seq: string, run: string, data: string, w: HistoryColumns): string {
  const text = `${fitText(ts, TS_WIDTH)}${GAP}${fitRight(seq, w.seq)}${GAP}${fitText(run, w.run)}`;
  return (w.data >= 4 ? `${text}${GAP}${fitText(data, w.data)}` : text).trimEnd();
}

/**
 * The flattened `data` of an event from its JSON text as the daemon sent it: `data.key` (nested
 * `data.a.b`) for objects, `data` for anything else; a string decoded, any other value (numbers
 * above all) as spelled, so a CSV cell holds the number the caller sent (`-10.0`, not `-10`).
 * A key that is empty or holds `.` or `"` is quoted (columnKey), so no two fields share a column.
 */
export function flattenData(dataText: string, prefix = 'data', out: Map<string, string> = new Map()): Map<string, string> {
  const members = scanMembers(dataText);
  if (members !== undefined && members.size > 0) {
    for (const [key, span] of members) flattenData(dataText.slice(span.start, span.end), `${prefix}.${columnKey(key)}`, out);
  } else {
    out.set(prefix, dataText.charCodeAt(0) === 34 ? (JSON.parse(dataText) as string) : dataText);
  }
  return out;
}

/** A key as a part of a column name: as it is, or in double quotes (a `"` in it doubled) when it is empty or holds `.` or `"`. */
export function columnKey(key: string): string {
  return key === '' || /[."]/.test(key) ? `"${key.replace(/"/g, '""')}"` : key;
}

/**
 * CSV (RFC 4180) of events: seq, ts, type, run_id, then every data column seen, in order of
 * first appearance. `texts[i]` is `events[i]` as the daemon sent it (the data cells come from it).
 */
export function historyCsv(events: readonly Envelope[], texts: readonly string[]): string {
  const flat = texts.map((text) => flattenData(memberText(text, 'data') ?? 'null'));
  const columns = [...new Set(flat.flatMap((f) => [...f.keys()]))];
  const rows = [['seq', 'ts', 'type', 'run_id', ...columns]];
  events.forEach((e, i) => {
    rows.push([String(e.seq), e.ts, e.type, typeof e.meta.run_id === 'string' ? e.meta.run_id : '', ...columns.map((c) => flat[i]!.get(c) ?? '')]);
  });
  return rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
