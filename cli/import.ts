import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import readline from 'node:readline';
import { TelemetryClientError } from '../client/errors.js';
import { ConfigError } from '../lib/errors.js';
import type { BatchFailure } from '../lib/wire.js';
import { connect } from './connect.js';
import { CommandFailure } from './failure.js';
import { say, type CliIo } from './io.js';
import { noExtraArguments, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';
import { progressBar } from './progress.js';

// `telemetry import FILE.ndjson`: a file of event requests (one JSON object per line, as
// POST /event takes them) sent in batches to POST /events, with a progress bar and a summary.

const DEFAULT_BATCH = 1000;
const MAX_BATCH = 10_000;
// failures printed one per line; past that they are counted
const SHOWN_FAILURES = 20;

/** One batch: the lines as they are in the file, and the file line number of each. */
interface Batch {
  lines: string[];
  lineNumbers: number[];
  /** Lines of the batch's range that are not UTF-8 text (not sent: decoding would respell them). */
  notUtf8: number[];
  /** Bytes of the file read up to the end of this batch. */
  bytes: number;
}

/** Import the file; exit 0 when every event was recorded, 1 (through the error path) otherwise. */
export async function runImport(file: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  if (typeof file !== 'string') throw new UsageError('missing FILE (an NDJSON file of events)');
  const batchSize = batchSizeOption(textOption(opts, 'batch-size'));
  const partial = switchOption(opts, 'partial');
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (error) {
    throw new CommandFailure(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const { client } = connect(opts, io);
  const progress = progressBar(io, `importing ${file}`);
  let recorded = 0;
  let requests = 0;
  const failures: string[] = [];
  try {
    for await (const batch of batches(file, batchSize)) {
      const undecodable = batch.notUtf8.map((n) => `line ${n}: the line is not valid UTF-8 text (INVALID_ENCODING)`);
      if (undecodable.length > 0 && !partial) {
        const range = `${Math.min(batch.lineNumbers[0] ?? Infinity, batch.notUtf8[0]!)}-${Math.max(batch.lineNumbers.at(-1) ?? 0, batch.notUtf8.at(-1)!)}`;
        throw new CommandFailure(`${undecodable.join('\n')}\nthe batch of lines ${range} was not sent (nothing of it recorded); `
          + `${recorded} event(s) before it were recorded. Fix the lines above, or use --partial to record the valid ones.`);
      }
      failures.push(...undecodable);
      if (batch.lines.length === 0) continue;
      requests++;
      try {
        recorded += (await client.postEventLines(batch.lines, { partial })).recorded;
      } catch (error) {
        const refused = batchFailures(error);
        if (!refused) throw error;
        failures.push(...refused.map((f) => `line ${batch.lineNumbers[f.index]}: ${f.detail} (${f.code})`));
        if (!partial) {
          const range = `${batch.lineNumbers[0]}-${batch.lineNumbers.at(-1)}`;
          throw new CommandFailure(`${failures.join('\n')}\nthe batch of lines ${range} was refused (nothing of it recorded); `
            + `${recorded} event(s) before it were recorded. Fix the lines above, or use --partial to record the valid ones.`);
        }
        recorded += Number((error as TelemetryClientError).answer?.recorded ?? 0);
      }
      progress.update(size === 0 ? 1 : batch.bytes / size, `${recorded} event(s)`);
    }
  } catch (error) {
    progress.done();
    if (!(error instanceof CommandFailure) && recorded > 0) say(io, `${recorded} event(s) were recorded before this failure`);
    throw error;
  }
  progress.done();
  io.out(`imported ${recorded} event(s) from ${file} in ${requests} request(s)${failures.length ? `; ${failures.length} invalid line(s) not recorded` : ''}\n`);
  if (failures.length === 0) return 0;
  const shown = failures.slice(0, SHOWN_FAILURES).join('\n');
  const more = failures.length > SHOWN_FAILURES ? `\n... and ${failures.length - SHOWN_FAILURES} more` : '';
  throw new CommandFailure(`${shown}${more}`);
}

/** The failures of a refused batch (INVALID_BATCH, BATCH_PARTLY_RECORDED), or undefined for any other error. */
function batchFailures(error: unknown): BatchFailure[] | undefined {
  if (!(error instanceof TelemetryClientError)) return undefined;
  if (error.code !== 'INVALID_BATCH' && error.code !== 'BATCH_PARTLY_RECORDED') return undefined;
  return error.answer?.failures as BatchFailure[] | undefined;
}

/**
 * The non-blank lines of the file in batches of `size`, read as a stream. Each line is read as
 * its bytes (latin1: one character per byte) and decoded only when it is UTF-8, so a line that
 * is not is reported, never sent with U+FFFD in place of its bytes.
 */
async function* batches(file: string, size: number): AsyncGenerator<Batch> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'latin1' }), crlfDelay: Infinity });
  let batch: Batch = { lines: [], lineNumbers: [], notUtf8: [], bytes: 0 };
  let bytes = 0;
  let n = 0;
  for await (const raw of lines) {
    n++;
    bytes += raw.length + 1;
    const lineBytes = Buffer.from(raw, 'latin1');
    if (!isUtf8(lineBytes)) {
      batch.notUtf8.push(n);
      continue;
    }
    const line = lineBytes.toString('utf8');
    if (line.trim() === '') continue;
    batch.lines.push(line);
    batch.lineNumbers.push(n);
    batch.bytes = bytes;
    if (batch.lines.length === size) {
      yield batch;
      batch = { lines: [], lineNumbers: [], notUtf8: [], bytes };
    }
  }
  if (batch.lines.length > 0 || batch.notUtf8.length > 0) yield { ...batch, bytes };
}

function batchSizeOption(text: string | undefined): number {
  if (text === undefined) return DEFAULT_BATCH;
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_BATCH) throw new ConfigError('--batch-size', `a whole number from 1 to ${MAX_BATCH}`, text);
  return n;
}
