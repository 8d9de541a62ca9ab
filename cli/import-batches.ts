import fs from 'node:fs';
import readline from 'node:readline';
import { CommandFailure } from './failure.js';
import { UsageError } from './options.js';

// The file side of `telemetry import`: which paths can be imported (a regular file: not a
// directory, a FIFO or a device such as /dev/zero, which never end or never hold lines), and
// its lines in batches bounded in events and in bytes of request body, so that no batch is
// larger than the daemon's body limit (--max-body).

/** One request's worth of lines. */
export interface Batch {
  lines: string[];
  /** The file line number of each line. */
  lineNumbers: number[];
  /** Bytes of the file read up to the end of this batch. */
  bytes: number;
  /** Bytes of the request body these lines make (each line and its newline). */
  body: number;
}

/** How large a batch may be: events, and bytes of body. */
export interface BatchLimits {
  records: number;
  bodyBytes: number;
}

/** The size of FILE, once it is known to be a regular file that can be read. */
export function importableSize(file: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
    fs.accessSync(file, fs.constants.R_OK);
  } catch (error) {
    throw new CommandFailure(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!stat.isFile()) throw new UsageError(`FILE must be a regular file of NDJSON events; ${file} is ${kindOf(stat)}`);
  return stat.size;
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (a named pipe: copy what it carries into a file first)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The body a line takes in a batch: its bytes and a newline. */
export function lineBody(line: string): number {
  return Buffer.byteLength(line) + 1;
}

/**
 * The non-blank lines of the file from line `startLine` on, in batches within `limits` (read
 * on each line: a limit learned from the daemon applies at once). A line larger than the body
 * limit on its own comes as a batch of its own, for the caller to refuse.
 */
export async function* fileBatches(file: string, limits: BatchLimits, startLine = 1): AsyncGenerator<Batch> {
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  let batch = emptyBatch(0);
  let bytes = 0;
  let n = 0;
  for await (const line of lines) {
    n++;
    bytes += lineBody(line);
    if (n < startLine || line.trim() === '') {
      if (batch.lines.length === 0) batch.bytes = bytes;
      continue;
    }
    const size = lineBody(line);
    if (batch.lines.length > 0 && batch.body + size > limits.bodyBytes) {
      yield batch;
      batch = emptyBatch(bytes - size);
    }
    batch.lines.push(line);
    batch.lineNumbers.push(n);
    batch.bytes = bytes;
    batch.body += size;
    if (batch.lines.length >= limits.records || batch.body >= limits.bodyBytes) {
      yield batch;
      batch = emptyBatch(bytes);
    }
  }
  if (batch.lines.length > 0) yield { ...batch, bytes };
}

/** A batch split again within `bodyBytes` (the daemon's limit turned out smaller). */
export function splitBatch(batch: Batch, bodyBytes: number): Batch[] {
  const out: Batch[] = [];
  let current: Batch | undefined;
  batch.lines.forEach((line, i) => {
    const size = lineBody(line);
    if (current === undefined || current.body + size > bodyBytes) {
      current = emptyBatch(batch.bytes);
      out.push(current);
    }
    current.lines.push(line);
    current.lineNumbers.push(batch.lineNumbers[i]!);
    current.body += size;
  });
  return out;
}

function emptyBatch(bytes: number): Batch {
  return { lines: [], lineNumbers: [], bytes, body: 0 };
}
