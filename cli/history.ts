import { DateTime } from 'luxon';
import { ConfigError } from '../lib/errors.js';
import type { Envelope } from '../lib/wire.js';
import { connect } from './connect.js';
import { DURATION, spanMs } from './durations.js';
import { historyColumns, historyCsv, historyHeader, historyRow } from './history-text.js';
import type { CliIo } from './io.js';
import { noExtraArguments, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry history TYPE`: the recorded events of one type, page by page from GET /history.
// A table on a terminal, NDJSON piped or with --json, CSV with --csv.

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
  const { client } = connect(opts, io);
  const signal = io.stopSignal();
  try {
    const pages = client.history({
      types: [type], from: duration ? `-${duration[1]}${duration[2]}` : from, to, run: textOption(opts, 'run'),
    });
    const all: Envelope[] = [];
    let columns: ReturnType<typeof historyColumns> | undefined;
    const table = !json && !csv && io.stdoutIsTTY;
    for await (const page of pages) {
      if (signal.aborted) break;
      if (csv) all.push(...page.events);
      else if (table) {
        if (!columns && page.events.length > 0) {
          columns = historyColumns(io.columns, page.events);
          io.out(`${historyHeader(columns)}\n`);
        }
        for (const e of page.events) io.out(`${historyRow(e, columns!)}\n`);
      } else {
        for (const e of page.events) io.out(`${JSON.stringify(e)}\n`);
      }
    }
    if (csv) io.out(historyCsv(all));
    else if (table && !columns) io.err(`${io.name}: no ${JSON.stringify(type)} events in that range\n`);
    return 0;
  } finally {
    client.close();
  }
}

/** --from/--to: ISO-8601 (a time without a zone is local time), or relative such as -2h; as the daemon takes it. */
function timeOption(opts: ParsedOptions, name: string): string | undefined {
  const text = textOption(opts, name);
  if (text === undefined) return undefined;
  if (text === 'now') return text;
  if (DURATION.test(text)) {
    spanMs(`--${name}`, text.startsWith('-') ? text.slice(1) : text);
    return text.startsWith('-') ? text : `-${text}`;
  }
  const dt = DateTime.fromISO(text.trim().replace(' ', 'T'), { setZone: true });
  if (!dt.isValid) throw new ConfigError(`--${name}`, 'a time such as 2026-03-17T22:00 (local), 2026-03-17T21:00Z, or -2h', text);
  return dt.toUTC().toISO()!;
}
