import { DateTime } from 'luxon';
import { ConfigError } from '../lib/errors.js';
import { normaliseTs } from '../lib/time.js';
import type { Envelope } from '../lib/wire.js';
import { connect } from './connect.js';
import { DURATION, spanMs } from './durations.js';
import { EXIT } from './failure.js';
import { stepOptions, stepRows } from './history-step.js';
import { stepTable } from './step-table.js';
import { historyColumns, historyCsv, historyHeader, historyRow } from './history-text.js';
import { say, show, type CliIo } from './io.js';
import type { RollupOptions } from '../client/rollup.js';
import { terminalText } from '../lib/terminal-text.js';
import { noExtraArguments, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry history TYPE`: the recorded events of one type, page by page from GET /history.
// A table on a terminal, NDJSON piped or with --json, CSV with --csv.

const ZONED = /T.*(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;
const LOCAL = /^\d{4}-\d{2}-\d{2}(?:T(?:[01]\d|2[0-3]):\d{2}(?::\d{2}(?:[.,]\d+)?)?)?$/i;

/** Print the history of TYPE; a daemon error (bad run, bad time) is exit 1, a bad option exit 2. */
export async function runHistory(typeArg: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const type = typeArg === undefined ? '' : String(typeArg);
  if (type === '') throw new UsageError('TYPE is required: the event type whose history to print');
  const json = switchOption(opts, 'json');
  const csv = switchOption(opts, 'csv');
  if (json && csv) throw new UsageError('--json and --csv cannot be used together');
  const since = textOption(opts, 'since');
  const from = timeOption(opts, 'from');
  const to = timeOption(opts, 'to');
  if (since !== undefined && from !== undefined) throw new UsageError('--since and --from cannot be used together');
  if (since !== undefined) spanMs('--since', since.startsWith('-') ? since.slice(1) : since);
  const duration = since === undefined ? undefined : DURATION.exec(since);
  const relative = duration ? `-${duration[1]}${duration[2]}` : from;
  const step = textOption(opts, 'step');
  if (step !== undefined) return printRollup(type, stepOptions(opts, step, relative, to), opts, io, json, csv);
  for (const name of ['width', 'fields']) if (textOption(opts, name) !== undefined) throw new UsageError(`--${name} is taken only with --step`);
  const { client } = connect(opts, io);
  const signal = io.stopSignal();
  try {
    // the daemon's text of each event: decoding and encoding again would respell numbers and escapes
    const pages = client.historyWithText({
      types: [type], from: relative, to, run: textOption(opts, 'run'),
    });
    const all: Envelope[] = [];
    const allTexts: string[] = [];
    let columns: ReturnType<typeof historyColumns> | undefined;
    const table = !json && !csv && io.stdoutIsTTY;
    // damaged files the range reached: named once each after the output, and the exit is 1 (not all could be read)
    const damaged = new Map<string, string>();
    for await (const page of pages) {
      if (signal.aborted) break;
      for (const d of page.damaged ?? []) damaged.set(d.file, d.reason);
      if (csv) {
        all.push(...page.events);
        allTexts.push(...page.texts);
      }
      else if (table) {
        if (!columns && page.events.length > 0) {
          columns = historyColumns(io.columns, page.events);
          io.out(`${historyHeader(columns)}\n`);
        }
        page.events.forEach((e, i) => io.out(`${historyRow(e, columns!, page.texts[i])}\n`));
      } else {
        for (const text of page.texts) show(io, `${text}\n`);
      }
    }
    if (csv) show(io, historyCsv(all, allTexts));
    else if (table && !columns) say(io, `no ${JSON.stringify(type)} events in that range`);
    for (const [file, reason] of damaged) {
      // a run file the timeline names that is not there (the daemon reports it as damaged, reason "missing (...)")
      if (reason.startsWith('missing')) say(io, `missing: ${file}: ${reason.slice('missing '.length)}`);
      else say(io, `damaged: ${file}: ${reason}; the events it still holds were shown, the rest of it could not be read`);
    }
    return damaged.size > 0 ? EXIT.DAEMON_ERROR : 0;
  } finally {
    client.close();
  }
}

/** --step: the rollup's buckets, a table on a terminal, the daemon's JSON text piped or with --json. */
async function printRollup(type: string, options: RollupOptions, opts: ParsedOptions, io: CliIo, json: boolean, csv: boolean): Promise<number> {
  if (csv) throw new UsageError('--csv cannot be used with --step (use --json)');
  if (textOption(opts, 'run') !== undefined) throw new UsageError('--run cannot be used with --step: rollups hold every run and the site');
  const { client } = connect(opts, io);
  try {
    const { text } = await client.rollupText(type, options);
    if (json || !io.stdoutIsTTY) {
      show(io, `${text}\n`);
      return 0;
    }
    const rows = stepRows(text);
    if (rows.length === 0) say(io, `no ${JSON.stringify(type)} readings with numeric fields in that range`);
    else io.out(stepTable(rows.map((r) => ({ ...r, field: terminalText(r.field) })), io.columns));
    return 0;
  } finally {
    client.close();
  }
}

/** --from/--to: ISO-8601 (a time without a zone is local time), or relative such as -2h; as the daemon takes it. */
export function timeOption(opts: ParsedOptions, name: string): string | undefined {
  const text = textOption(opts, name);
  if (text === undefined) return undefined;
  if (text === 'now') return text;
  if (DURATION.test(text)) {
    spanMs(`--${name}`, text.startsWith('-') ? text.slice(1) : text);
    return text.startsWith('-') ? text : `-${text}`;
  }
  const iso = text.trim().replace(' ', 'T');
  const expected = 'a time such as 2026-03-17T22:00 (local), 2026-03-17T21:00Z, or -2h';
  // with a zone: the spellings an event's ts takes (lib/time.ts); without: local, a calendar date and time only
  if (ZONED.test(iso)) {
    const normal = normaliseTs(iso);
    if ('problem' in normal) throw new ConfigError(`--${name}`, expected, text);
    return normal.ts;
  }
  const dt = LOCAL.test(iso) ? DateTime.fromISO(iso) : undefined;
  if (!dt?.isValid) throw new ConfigError(`--${name}`, expected, text);
  return dt.toUTC().toISO()!;
}
