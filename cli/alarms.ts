import { ConfigError } from '../lib/errors.js';
import { operatorName } from '../lib/operator-name.js';
import { lineText } from '../lib/terminal-text.js';
import { normaliseTs } from '../lib/time.js';
import { ALARM_SEVERITIES, MAX_SHELF_MS, type AlarmAnswer, type AlarmSeverity } from '../lib/wire.js';
import { connect } from './connect.js';
import { spanText } from './durations.js';
import { parseDuration } from '../daemon/rules/duration.js';
import { EXIT } from './failure.js';
import { say, show, type CliIo } from './io.js';
import { noExtraArguments, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry alarms`, `ack ID`, `shelve ID --for D` and `unshelve ID` (docs/cli.md, docs/alarms.md).
// `alarms` exits 4 while any alarm waits for an acknowledgement (unack or rtn_unack), so a
// script can page someone: `telemetry alarms >/dev/null || notify-ops`.


/** List the alarms: a line each (or the daemon's JSON); exit 4 while any is unacknowledged. */
export async function runAlarms(opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const json = switchOption(opts, 'json');
  const { client } = connect(opts, io);
  const answer = await client.alarms();
  show(io, json ? `${JSON.stringify(answer)}\n` : answer.alarms.map((a) => `${alarmLine(a)}\n`).join('') || 'no alarms are configured\n');
  const waiting = answer.alarms.filter((a) => a.state === 'unack' || a.state === 'rtn_unack');
  if (waiting.length === 0) return EXIT.OK;
  say(io, `${waiting.length} alarm${waiting.length === 1 ? '' : 's'} not acknowledged: ${waiting.map((a) => lineText(a.id)).join(', ')}`);
  return EXIT.NOT_FRESH;
}

/**
 * One alarm as a line: `CRITICAL  wind  unack since <ts>  value 45  wind high`, then who
 * acknowledged it, until when it is shelved, when it escalated (both only while raised: a normal
 * alarm's are of an ended raise), and why it cannot be judged.
 */
export function alarmLine(a: AlarmAnswer): string {
  const parts = [a.severity.toUpperCase(), a.id, `${a.state} since ${a.since}`];
  if (a.value !== null) parts.push(`value ${JSON.stringify(a.value)}`);
  parts.push(a.message);
  // a normal alarm's acknowledgement and escalation were of a raise that has ended: not shown
  const raised = a.state !== 'normal';
  if (raised && a.acked_by !== null) parts.push(`acked by ${a.acked_by} at ${a.acked_at ?? '?'}`);
  if (a.shelved_until !== null) parts.push(`shelved until ${a.shelved_until}`);
  if (raised && a.escalated_at !== null) parts.push(`escalated at ${a.escalated_at}`);
  if (a.unknown !== null) parts.push(`unknown: ${a.unknown}`);
  // configured and posted texts (a message, who acknowledged) stay on one line, piped or not
  return parts.map(lineText).join('  ');
}

/**
 * Acknowledge alarm ID (by --by, else the user's name) and print its line. With --severity
 * and --since (what the operator saw: `telemetry alarms` prints both), the daemon refuses
 * (409 ALARM_CHANGED, exit 1) when the alarm is no longer that, as the console's `a` does.
 */
export async function runAck(id: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  const alarm = alarmId(id, 'ack');
  const by = byOption(opts, io);
  const note = textOption(opts, 'note');
  const severity = severityOption(opts);
  const since = sinceOption(opts);
  const { client } = connect(opts, io);
  show(io, `${alarmLine(await client.ack(alarm, { by, note, severity, since }))}\n`);
  return EXIT.OK;
}

/** `--severity` of ack: the severity the operator saw (any case: `alarms` prints it in capitals). */
function severityOption(opts: ParsedOptions): AlarmSeverity | undefined {
  const text = textOption(opts, 'severity');
  if (text === undefined) return undefined;
  const severity = ALARM_SEVERITIES.find((s) => s === text.toLowerCase());
  if (severity === undefined) throw new ConfigError('--severity', `the severity you saw: ${ALARM_SEVERITIES.join(', ')}`, text);
  return severity;
}

/** `--since` of ack: the alarm's `since` the operator saw (an envelope ts, or any ISO-8601 spelling of the instant). */
function sinceOption(opts: ParsedOptions): string | undefined {
  const text = textOption(opts, 'since');
  if (text === undefined) return undefined;
  const read = normaliseTs(text);
  if ('problem' in read) throw new ConfigError('--since', `the alarm's since you saw (${read.problem})`, text);
  return read.ts;
}

/** Shelve alarm ID for --for (a duration: 30m, 2h, at most 7d) and print its line. */
export async function runShelve(id: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  const alarm = alarmId(id, 'shelve');
  const forText = textOption(opts, 'for');
  if (forText === undefined) throw new UsageError(`--for is required (how long: --for 30m, --for 2h; at most ${spanText(MAX_SHELF_MS)})`);
  // the config file's grammar of spans (`for`, `escalate_after`: one parser, no sign), in the daemon's own bound (more than 0, at most 7d)
  const ms = shelfMs(forText);
  const by = byOption(opts, io);
  const { client } = connect(opts, io);
  show(io, `${alarmLine(await client.shelve(alarm, { by, forSeconds: ms / 1000 }))}\n`);
  return EXIT.OK;
}

/** Unshelve alarm ID now and print its line. */
export async function runUnshelve(id: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  const alarm = alarmId(id, 'unshelve');
  const by = byOption(opts, io);
  const { client } = connect(opts, io);
  show(io, `${alarmLine(await client.unshelve(alarm, { by }))}\n`);
  return EXIT.OK;
}

function alarmId(id: unknown, command: string): string {
  if (typeof id !== 'string' && typeof id !== 'number') throw new UsageError(`missing ID (the alarm's id: telemetry ${command} wind)`);
  return String(id);
}

// who does it: --by, else the user's login name (USER, LOGNAME, USERNAME, else the system's account name)
function byOption(opts: ParsedOptions, io: CliIo): string {
  noExtraArguments(opts);
  const by = textOption(opts, 'by') ?? operatorName(io.env);
  if (by === undefined || by === '') throw new UsageError('--by is required when the user name is unknown (USER is not set)');
  return by;
}

/** `--for` of shelve in ms: a span of the config file's grammar, more than 0 and at most the daemon's longest shelf (as POST /alarms/{id}/shelve takes for_s). */
function shelfMs(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text, '--for');
  } catch {
    ms = NaN;
  }
  if (!(ms > 0 && ms <= MAX_SHELF_MS)) {
    throw new ConfigError('--for', `a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, more than 0 and at most ${spanText(MAX_SHELF_MS)}`, text);
  }
  return ms;
}
