import sade from 'sade';
import { DAEMON_SETTINGS, settingHelp } from '../lib/settings.js';
import { VERSION } from '../lib/version.js';
import type { CliIo } from './io.js';
import type { ParsedOptions } from './options.js';

// The command line as one sentence per command. `io.prefix` is "telemetry " for the
// `meridian` executable and "" for `telemetry`. Every action resolves to an exit code.
// docs/cli.md holds each command's --help verbatim (a test compares them). Each action loads
// its module when it runs, so --help and usage mistakes answer without loading got or execa.

/** The bare command names, in the order of the help. */
export const COMMANDS = ['run', 'stop', 'current', 'history', 'rollup', 'plot', 'night', 'status', 'safety', 'post', 'import', 'du', 'alarms', 'ack', 'shelve', 'unshelve', 'fleet'] as const;

const HOST = 'Daemon host (env MERIDIAN_TELEMETRY_HOST; default localhost)';
const PORT = 'Daemon port (env MERIDIAN_TELEMETRY_PORT; default 6562)';
const TOKEN = 'Bearer token to send (env MERIDIAN_TELEMETRY_TOKEN)';

/** Build the sade program of an executable. */
export function buildProgram(io: CliIo) {
  const p = io.prefix;
  const prog = sade(io.name).version(VERSION);

  const run = prog.command(`${p}run`)
    .describe('Run the telemetry daemon in the foreground (logs to stderr; Ctrl-C or SIGTERM stops it). With --detach, start it in the background, wait until it answers /ready, print its pid, address and log file, and exit.');
  // the daemon's settings, one option per row of the settings table (lib/settings.ts)
  for (const setting of DAEMON_SETTINGS) run.option(setting.flag, settingHelp(setting));
  run
    .option('--forward', 'Forward the log to this mqtt://, postgres:// or http(s):// URL (repeatable; see docs/forwarding.md)')
    .option('--config', 'A TOML file: forwarding sinks (docs/forwarding.md), the [safety] verdict (docs/safety.md), alarms and their webhooks (docs/alarms.md)')
    .option('--log-file', 'Append the log to this file instead of stderr, reopened on SIGHUP (with --detach default <site-dir>/.meridian/daemon.log)')
    .option('--detach', 'Start in the background and exit once it answers /ready')
    .option('--timeout', 'With --detach: seconds to wait for /ready (default 10)')
    .example(`${p}run`)
    .example(`${p}run --port 7000 --site-dir /srv/telemetry --fsync always`)
    .example(`${p}run --forward postgres://meridian@db.local/telemetry --forward mqtt://broker.local`)
    .example(`${p}run --max-age 'weather=180,power=90,*=600'`)
    .example(`${p}run --host 0.0.0.0 --allow-unauthenticated --allowed-hosts pocs-control,192.0.2.7`)
    .example(`${p}run --detach`)
    .example(`${p}run --detach --log-file /var/log/meridian-telemetry.log`)
    .action(async (opts: ParsedOptions) => (await import('./run.js')).runRun(opts, io));

  prog.command(`${p}stop`)
    .describe('Ask the daemon to shut down and wait until it has exited. Exit 0 also when none was running.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--timeout', 'Seconds to wait for the daemon to exit (default 10)')
    .example(`${p}stop`)
    .example(`${p}stop --port 7000 --timeout 30`)
    .action(async (opts: ParsedOptions) => (await import('./stop.js')).runStop(opts, io));

  prog.command(`${p}current [TYPE]`)
    .describe('Print the current reading of every type, or of TYPE. On a terminal a table (or a panel for TYPE); piped or with --json the JSON the API answers. Stale and missing readings are marked (and listed first). For TYPE: exit 4 when its reading is stale or missing, the age on stderr. With --follow: the live console on a terminal, one JSON line per new reading when piped.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--json', 'Print JSON even on a terminal')
    .option('--follow', 'Keep watching: the live console, or JSON lines when piped or with --json')
    .option('--interval', 'With --follow: seconds between polls of a daemon without a live stream, and between status checks (default 1)')
    .option('--max-age', "Seconds after which a reading is stale, for every type (default: the daemon's limit for each type)")
    .option('--stale', 'The old name of --max-age')
    .option('--theme', 'With --follow: day or night (dim red on black) (default day)')
    .option('--bell', 'With --follow on a terminal: ring the terminal bell when an alarm is raised (default off)')
    .example(`${p}current`)
    .example(`${p}current weather --json | jq .data`)
    .example(`${p}current power --max-age 90 || park-the-mount`)
    .example(`${p}current --follow --theme night`)
    .example(`${p}current weather --follow --interval 5 >> weather.ndjson`)
    .action(async (type: unknown, opts: ParsedOptions) => (await import('./current.js')).runCurrent(type, opts, io));

  prog.command(`${p}history [TYPE]`)
    .describe('Print the recorded events of TYPE in record order (across day files and runs), read from the daemon page by page. On a terminal a table; piped or with --json one JSON line per event; with --csv CSV with one column per data field.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--since', 'Only the last span of time: 30m, 2h, 1d (s, m, h, d, w)')
    .option('--from', 'From this time: ISO-8601 (without a zone: local time), or relative such as -3h')
    .option('--to', 'Up to this time, not included (same forms as --from)')
    .option('--run', 'Only the events of this run id, or site for the site files only')
    .option('--json', 'Print one JSON line per event even on a terminal')
    .option('--csv', 'Print CSV: seq, ts, type, run_id and one column per data field')
    .option('--step', 'Print rollup buckets instead of events: auto, 1m, 15m, 1h or night (docs/rollups.md)')
    .option('--width', 'With --step auto: the least number of buckets wanted (default 1000)')
    .option('--fields', 'With --step: these numeric data fields, comma-separated (default every one): data.temp,data.wind.speed')
    .example(`${p}history weather --since 2h`)
    .example(`${p}history weather --from 2026-03-17T22:00 --to 2026-03-18T04:00 --csv > night.csv`)
    .example(`${p}history "dome status" --run 042 --json | jq .data`)
    .example(`${p}history weather --since 30d --step auto --width 500 --fields data.temp --json`)
    .action(async (type: unknown, opts: ParsedOptions) => (await import('./history.js')).runHistory(type, opts, io));

  prog.command(`${p}rollup [ACTION]`)
    .describe('Make every rollup tier (1m, 15m, 1h, night) again from the recorded files (ACTION: rebuild) and wait until it is in place. Buckets whose files --retain deleted are kept. Safe to run again or to interrupt.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--timeout', 'Seconds to wait for the rebuild (default 3600)')
    .option('--json', 'Print the JSON of POST /rollups/rebuild instead')
    .example(`${p}rollup rebuild`)
    .action(async (action: unknown, opts: ParsedOptions) => (await import('./rollup.js')).runRollup(action, opts, io));

  prog.command(`${p}plot [SERIES]`)
    .describe('Chart fields over time: their mean per rollup bucket, in the terminal (braille, with axes), or as an image with --svg or --png; each SERIES written like weather.temp_c (TYPE:FIELD for a type with a dot in its name). The last 12 hours unless --since or --from/--to say otherwise.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--since', 'The last span of time: 30m, 12h, 7d (s, m, h, d, w) (default 12h)')
    .option('--from', 'From this time: ISO-8601 (without a zone: local time), or relative such as -3h')
    .option('--to', 'Up to this time, not included (same forms as --from)')
    .option('--step', 'The buckets: auto (enough for the chart\'s width), 1m, 15m, 1h or night (default auto)')
    .option('--width', 'With --step auto: at least this many buckets (default: the chart\'s width in dots)')
    .option('--utc', 'Times in UTC (default local time)')
    .option('--svg', 'Write the chart as an SVG image to this file instead')
    .option('--png', 'Write the chart as a PNG image to this file instead')
    .example(`${p}plot weather.temp_c`)
    .example(`${p}plot weather.temp_c weather.dew_point_c --since 7d`)
    .example(`${p}plot weather.wind_speed --from 2026-03-17T18:00 --to 2026-03-18T08:00 --utc --png wind.png`)
    .action(async (first: unknown, opts: ParsedOptions) => (await import('./plot.js')).runPlot(first, opts, io));

  prog.command(`${p}night [DAY]`)
    .describe('Print the report of a night (the site day DAY, YYYYMMDD: local noon to noon; default the site day now) or of a run: its span, runs, time safe and unsafe with reasons, stale time per type, alarms, gaps, events per type, weather min/mean/max, time per POCS state. Fits 80 columns; --json, --md or --html FILE for the other forms.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--run', 'The report of this run id instead of a night')
    .option('--json', 'Print the JSON the daemon answers')
    .option('--md', 'Print Markdown')
    .option('--html', 'Write an HTML page with charts (inline SVG) to this file')
    .example(`${p}night`)
    .example(`${p}night 20260317 --md >> logbook.md`)
    .example(`${p}night --run 042 --html night.html`)
    .action(async (day: unknown, opts: ParsedOptions) => (await import('./night.js')).runNight(day, opts, io));

  prog.command(`${p}status`)
    .describe('Print one line about the daemon: address, pid, version, uptime, active run or site, number of types and of stale ones. Exit 3 when no daemon answers.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--json', 'Print the JSON of GET /status instead')
    .example(`${p}status`)
    .example(`${p}status --json`)
    .action(async (opts: ParsedOptions) => (await import('./status.js')).runStatus(opts, io));

  prog.command(`${p}safety`)
    .describe("Print the daemon's safety verdict in one line: SAFE since <ts>, or UNSAFE since <ts> and the reasons (docs/safety.md). Exit 0 safe, 4 unsafe (the reasons on stderr too), 3 when no daemon answers.")
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--json', 'Print the JSON of GET /safety instead (the exit code is the same)')
    .example(`${p}safety`)
    .example(`${p}safety && open-the-dome`)
    .example(`${p}safety --json | jq .reasons`)
    .action(async (opts: ParsedOptions) => (await import('./safety.js')).runSafety(opts, io));

  prog.command(`${p}post [TYPE]`)
    .describe('Record one event of TYPE and print its envelope (the JSON line the daemon stored).')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--data', 'The reading, any JSON value (required; null counts)')
    .option('--meta', 'Caller metadata, a JSON object (default {})')
    .option('--not-current', 'Record it but leave the current view as it was (make_current false)')
    .option('--max-age', "Seconds after which this reading is stale (max_age_s), instead of the daemon's --max-age for its type")
    .example(`${p}post weather --data '{"temp_c":-3.5,"wind_ms":4.2}'`)
    .example(`${p}post power --data 230 --max-age 90`)
    .example(`${p}post "dome status" --data '"open"' --meta '{"by":"ops"}'`)
    .action(async (type: unknown, opts: ParsedOptions) => (await import('./post.js')).runPost(type, opts, io));

  prog.command(`${p}import [FILE]`)
    .describe('Record the events of an NDJSON file (one POST /event body per line) in batches within the daemon\'s body limit, with a progress bar on a terminal and a summary. A batch with an invalid line is refused whole and the import stops, unless --partial. Ctrl-C stops after the batch in flight and prints the --start-line to resume with (exit 130).')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--batch-size', 'Events per request (default 1000, at most 10000)')
    .option('--partial', 'Record the valid lines of each batch, list the invalid ones at the end (exit 1 if any)')
    .option('--max-body', "The daemon's --max-body in bytes, when smaller than the default 1048576 (batches stay within it; a 413 naming a smaller limit is believed)")
    .option('--start-line', 'Begin at this line of FILE (default 1): resume an interrupted import without duplicates')
    .example(`${p}import backlog.ndjson`)
    .example(`${p}import weather-2026-03.ndjson --partial --batch-size 5000`)
    .action(async (file: unknown, opts: ParsedOptions) => (await import('./import.js')).runImport(file, opts, io));

  prog.command(`${p}du`)
    .describe('Show the space the data files take: one line per file of each site day and run (gzip when compressed; damaged, empty, duplicate, temp and unknown files marked), and the totals. Reads the site directory; no daemon needed.')
    .option('--site-dir', 'The site directory (env MERIDIAN_TELEMETRY_SITE_DIR; default $XDG_DATA_HOME/meridian/telemetry)')
    .option('--json', 'Print {site_dir, files: [{kind, name, file, bytes, compressed, state, reason}], total_bytes} instead')
    .example(`${p}du`)
    .example(`${p}du --site-dir /srv/telemetry --json | jq .total_bytes`)
    .action(async (opts: ParsedOptions) => (await import('./du.js')).runDu(opts, io));

  prog.command(`${p}alarms`)
    .describe('Print every configured alarm, worst first: severity, id, state and since when, value, message, who acknowledged it, until when it is shelved. Exit 4 while any alarm is not acknowledged (unack or rtn_unack), their ids on stderr.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--json', 'Print the JSON of GET /alarms instead')
    .example(`${p}alarms`)
    .example(`${p}alarms --json | jq '.alarms[] | select(.state == "unack")'`)
    .action(async (opts: ParsedOptions) => (await import('./alarms.js')).runAlarms(opts, io));

  prog.command(`${p}ack [ID]`)
    .describe('Acknowledge alarm ID (unack: acked; returned to normal: normal) and print its line. Exit 1 when it has nothing to acknowledge.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--by', 'Who acknowledges (default: the user name, $USER)')
    .option('--note', 'A note kept in the acknowledgement\'s event')
    .option('--severity', 'The severity you saw: refused (exit 1, ALARM_CHANGED) when the alarm has another now')
    .option('--since', 'The alarm\'s since you saw: refused (exit 1, ALARM_CHANGED) when it moved since')
    .example(`${p}ack wind`)
    .example(`${p}ack dew --by night-ops --note 'dome closed by hand'`)
    .example(`${p}ack wind --severity warning --since 2026-03-17T22:04:11.000Z`)
    .action(async (id: unknown, opts: ParsedOptions) => (await import('./alarms.js')).runAck(id, opts, io));

  prog.command(`${p}shelve [ID]`)
    .describe('Shelve alarm ID for a while: no transitions and no escalation until then (or until unshelve); then it is raised again if its condition holds.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--for', 'How long (required): 30m, 2h, 1h30m, 1d or seconds (ms, s, m, h, d as in the config file; at most 7d)')
    .option('--by', 'Who shelves it (default: the user name, $USER)')
    .example(`${p}shelve wind --for 2h`)
    .action(async (id: unknown, opts: ParsedOptions) => (await import('./alarms.js')).runShelve(id, opts, io));

  prog.command(`${p}unshelve [ID]`)
    .describe('Unshelve alarm ID now: raised again at once if its condition holds, else normal. Exit 1 when it is not shelved.')
    .option('--host', HOST)
    .option('--port', PORT)
    .option('--token', TOKEN)
    .option('--by', 'Who unshelves it (default: the user name, $USER)')
    .example(`${p}unshelve wind`)
    .action(async (id: unknown, opts: ParsedOptions) => (await import('./alarms.js')).runUnshelve(id, opts, io));

  prog.command(`${p}fleet [VIEW] [UNIT]`)
    .describe('Show a fleet from its PostgreSQL database (docs/fleet.md): one line per unit, silent units first (nothing heard for --silent-after), then those that need a look (unsafe, an alarm standing, stale readings), with their worst alarm, lag, version and when last heard. Exit 4 when a unit is silent. VIEW coverage: each unit\'s seqs per stream and the gaps between them (reads the whole events table). VIEW retire UNIT: forget a silent unit (its line and current rows; its events stay) until it is heard again.')
    .option('--db', 'The fleet\'s database, postgres://user@host/database (env MERIDIAN_TELEMETRY_FLEET_DB; the password from PGPASSWORD or ~/.pgpass)')
    .option('--table', 'The events table the units forward to (default meridian_events)')
    .option('--json', 'Print JSON instead of the table')
    .option('--silent-after', 'Seconds without a word from a unit before it is silent (default 60)')
    .option('--max-age', 'When readings turn stale, in seconds per type: weather=180,*=600 (default *=600; a reading\'s own max_age_s wins)')
    .option('--timeout', 'Seconds to wait for the database (default 10)')
    .option('--follow', 'Keep watching: the fleet console on a terminal, one JSON line of the units per poll when piped or with --json')
    .option('--interval', 'With --follow: seconds between polls of the database (default 0.5)')
    .example(`${p}fleet --db postgres://meridian@db.site/observatory`)
    .example(`${p}fleet --follow --db postgres://meridian@db.site/observatory`)
    .example(`${p}fleet --db postgres://meridian@db.site/observatory --json | jq '.[] | select(.state != "ok")'`)
    .example(`${p}fleet coverage --db postgres://meridian@db.site/observatory`)
    .example(`${p}fleet retire dome-c --db postgres://meridian@db.site/observatory`)
    .action(async (view: unknown, unit: unknown, opts: ParsedOptions) => (await import('./fleet.js')).runFleet(view, unit, opts, io));

  return prog;
}
