import type { TelemetryClient } from '../client/client.js';
import { TelemetryClientError, TelemetryConnectionError } from '../client/errors.js';
import { ConfigError } from '../lib/errors.js';
import type { BatchFailure } from '../lib/wire.js';
import { connect } from './connect.js';
import { CommandFailure, EXIT } from './failure.js';
import { countLines, fileBatches, importableSize, splitBatch, type Batch, type BatchLimits } from './import-batches.js';
import { say, show, type CliIo } from './io.js';
import { noExtraArguments, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';
import { progressBar } from './progress.js';
import { wholeNumberIn } from '../lib/whole-number.js';

// `telemetry import FILE.ndjson`: a file of event requests (one JSON object per line, as
// POST /event takes them) sent in batches to POST /events, with a progress bar and a summary.
// Batches stay within the daemon's body limit; Ctrl-C ends after the batch in flight and says
// where to resume (--start-line) so that nothing is recorded twice.

const DEFAULT_BATCH = 1000;
const MAX_BATCH = 10_000;
// the daemon's default --max-body; a daemon with a smaller one says so in its 413, and is believed
const DEFAULT_MAX_BODY = 1024 * 1024;
const MAX_BODY = 268_435_456;
// failures printed one per line; past that they are counted
const SHOWN_FAILURES = 20;
/** The exit code of an import stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells say). */
export const EXIT_INTERRUPTED = 130;

/** What an import has done so far. */
interface Tally {
  recorded: number;
  requests: number;
  failures: string[];
  /** The last line of the file whose batch was answered. */
  lastLine: number;
  /** The first and last line of the batch sent and not answered yet. */
  inFlight?: readonly [number, number];
}

// a connection that was never made: nothing of the batch reached a daemon
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Import the file; exit 0 when every event was recorded, 1 (through the error path) otherwise. */
export async function runImport(file: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  if (typeof file !== 'string') throw new UsageError('missing FILE (an NDJSON file of events)');
  const limits: BatchLimits = {
    records: wholeOption(textOption(opts, 'batch-size'), '--batch-size', DEFAULT_BATCH, 1, MAX_BATCH),
    bodyBytes: wholeOption(textOption(opts, 'max-body'), '--max-body', DEFAULT_MAX_BODY, 1024, MAX_BODY),
  };
  const startLine = wholeOption(textOption(opts, 'start-line'), '--start-line', 1, 1, Number.MAX_SAFE_INTEGER);
  const partial = switchOption(opts, 'partial');
  const size = importableSize(file);
  const { client } = connect(opts, io);
  const stop = io.stopSignal();
  const progress = progressBar(io, `importing ${file}`);
  const tally: Tally = { recorded: 0, requests: 0, failures: [], lastLine: startLine - 1 };
  const resume = (line: number) => `${io.name} ${io.prefix}import ${file} --start-line ${line}`;
  try {
    for await (const batch of fileBatches(file, limits, startLine)) {
      if (stop.aborted) break;
      const undecodable = batch.notUtf8.map((n) => `line ${n}: the line is not valid UTF-8 text (INVALID_ENCODING)`);
      if (undecodable.length > 0 && !partial) {
        const first = Math.min(batch.lineNumbers[0] ?? Infinity, batch.notUtf8[0]!);
        const range = `${first}-${Math.max(batch.lineNumbers.at(-1) ?? 0, batch.notUtf8.at(-1)!)}`;
        throw new CommandFailure(`${undecodable.join('\n')}\nthe batch of lines ${range} was not sent (nothing of it recorded); `
          + `${tally.recorded} event(s) before it were recorded. Fix the lines above and go on with: ${resume(first)}; or use --partial to record the valid ones.`);
      }
      tally.failures.push(...undecodable);
      if (batch.lines.length > 0) await sendBatch(client, batch, limits, partial, tally, resume);
      tally.lastLine = Math.max(tally.lastLine, batch.lineNumbers.at(-1) ?? 0, batch.notUtf8.at(-1) ?? 0);
      progress.update(size === 0 ? 1 : batch.bytes / size, `${tally.recorded} event(s)`);
    }
  } catch (error) {
    progress.done();
    if (!(error instanceof CommandFailure) && tally.recorded > 0) say(io, `${tally.recorded} event(s) were recorded before this failure`);
    if (error instanceof TelemetryConnectionError && tally.inFlight && !NOT_SENT.has(error.reason)) {
      const [first, last] = tally.inFlight;
      say(io, `the batch of lines ${first}-${last} got no answer: it may be recorded (whole) or not at all; look for the event of line ${last} `
        + `("${io.name} ${io.prefix}history TYPE") and go on with: ${resume(last + 1)} if it is there, else ${resume(first)}`);
    }
    throw error;
  }
  progress.done();
  if (stop.aborted) {
    say(io, `interrupted: ${tally.recorded} event(s) recorded, every line up to line ${tally.lastLine} of ${file} was sent; `
      + `resume without duplicates with: ${resume(tally.lastLine + 1)}`);
    return EXIT_INTERRUPTED;
  }
  if (startLine > 1 && tally.requests === 0 && tally.failures.length === 0) await pastTheEnd(file, startLine, io);
  const { recorded, requests, failures } = tally;
  show(io, `imported ${recorded} event(s) from ${file} in ${requests} request(s)${failures.length ? `; ${failures.length} invalid line(s) not recorded` : ''}\n`);
  if (failures.length === 0) return EXIT.OK;
  const shown = failures.slice(0, SHOWN_FAILURES).join('\n');
  const more = failures.length > SHOWN_FAILURES ? `\n... and ${failures.length - SHOWN_FAILURES} more` : '';
  throw new CommandFailure(`${shown}${more}`);
}

/**
 * A --start-line that left nothing to send: past the file's last line is a mistake (exit 2);
 * the line right after it (where an import interrupted after its last batch goes on) is said.
 */
async function pastTheEnd(file: string, startLine: number, io: CliIo): Promise<void> {
  const lines = await countLines(file);
  if (startLine > lines + 1) throw new UsageError(`--start-line ${startLine} is past the end of ${file}, which has only ${lines} line(s)`);
  if (startLine === lines + 1) say(io, `${file} has ${lines} line(s): nothing after line ${lines} to import`);
}

/** Send one batch; a 413 naming a smaller limit splits it again, a line over the limit alone is refused. */
async function sendBatch(client: TelemetryClient, batch: Batch, limits: BatchLimits, partial: boolean, tally: Tally,
  resume: (line: number) => string): Promise<void> {
  if (batch.body > limits.bodyBytes) {
    const line = batch.lineNumbers[0]!;
    const over = `${batch.body - 1} bytes, more than the daemon's body limit (${limits.bodyBytes} bytes, its --max-body)`;
    if (partial) {
      tally.failures.push(`line ${line}: ${over} (BODY_TOO_LARGE)`);
      return;
    }
    throw new CommandFailure(`line ${line} is ${over}; nothing of it was recorded; ${tally.recorded} event(s) before it were. `
      + `Shorten it, or go on after it with: ${resume(line + 1)}`);
  }
  tally.requests++;
  tally.inFlight = [batch.lineNumbers[0]!, batch.lineNumbers.at(-1)!];
  try {
    tally.recorded += (await client.postEventLines(batch.lines, { partial })).recorded;
    tally.inFlight = undefined;
  } catch (error) {
    if (error instanceof TelemetryConnectionError) throw error;
    tally.inFlight = undefined;
    const learned = limitOf(error);
    if (learned !== undefined && learned < limits.bodyBytes) {
      tally.requests--;
      limits.bodyBytes = learned;
      for (const part of splitBatch(batch, learned)) await sendBatch(client, part, limits, partial, tally, resume);
      return;
    }
    const refused = batchFailures(error);
    if (!refused) throw error;
    tally.failures.push(...refused.map((f) => `line ${batch.lineNumbers[f.index]}: ${f.detail} (${f.code})`));
    if (!partial) {
      const first = batch.lineNumbers[0]!;
      throw new CommandFailure(`${tally.failures.join('\n')}\nthe batch of lines ${first}-${batch.lineNumbers.at(-1)} was refused (nothing of it recorded); `
        + `${tally.recorded} event(s) before it were recorded. Fix the lines above and go on with: ${resume(first)}; or use --partial to record the valid ones.`);
    }
    tally.recorded += Number((error as TelemetryClientError).answer?.recorded ?? 0);
  }
}

/** The body limit a 413 BODY_TOO_LARGE names ("... the limit of N bytes."), or undefined. */
function limitOf(error: unknown): number | undefined {
  if (!(error instanceof TelemetryClientError) || error.code !== 'BODY_TOO_LARGE') return undefined;
  const match = /limit of (\d+) bytes/.exec(error.detail);
  return match ? Number(match[1]) : undefined;
}

/** The failures of a refused batch (INVALID_BATCH, BATCH_PARTLY_RECORDED), or undefined for any other error. */
function batchFailures(error: unknown): BatchFailure[] | undefined {
  if (!(error instanceof TelemetryClientError)) return undefined;
  if (error.code !== 'INVALID_BATCH' && error.code !== 'BATCH_PARTLY_RECORDED') return undefined;
  return error.answer?.failures as BatchFailure[] | undefined;
}

function wholeOption(text: string | undefined, option: string, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const n = wholeNumberIn(text, min, max);
  if (n === undefined) throw new ConfigError(option, `a whole number from ${min} to ${max}`, text);
  return n;
}
