import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
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
  /** Lines of the batch's range that are not UTF-8 text (not sent: decoding would respell them). */
  notUtf8: number[];
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

/** One line of the file: its text (undefined when it is longer than the body limit: not kept), its bytes, its number. */
interface FileLine {
  text: string | undefined;
  /** false when the line's bytes are not UTF-8 text (its text is then not to be sent). */
  utf8: boolean;
  size: number;
  number: number;
  /** Bytes of the file read up to the end of this line. */
  offset: number;
}

/**
 * The lines of the file, split at LF (a CR before it is dropped). A line longer than
 * `limits.bodyBytes` is counted but not kept: a file without line breaks (a binary file)
 * never fills memory.
 */
async function* fileLines(file: string, limits: BatchLimits): AsyncGenerator<FileLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let number = 0;
  let offset = 0;
  const take = (piece: Buffer) => {
    size += piece.length;
    if (size <= limits.bodyBytes) parts.push(piece); else parts = [];
  };
  const line = (): FileLine => {
    const bytes = size <= limits.bodyBytes ? Buffer.concat(parts) : undefined;
    const utf8 = bytes === undefined || isUtf8(bytes);
    const text = bytes === undefined ? undefined : bytes.toString('utf8').replace(/\r$/, '');
    const done = { text, utf8, size, number: ++number, offset };
    parts = [];
    size = 0;
    return done;
  };
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      take(chunk.subarray(start, at));
      offset += at + 1 - start;
      start = at + 1;
      yield line();
    }
    take(chunk.subarray(start));
    offset += chunk.length - start;
  }
  if (size > 0) yield line();
}

/**
 * The non-blank lines of the file from line `startLine` on, in batches within `limits` (read
 * on each line: a limit learned from the daemon applies at once). A line larger than the body
 * limit on its own comes as a batch of its own, for the caller to refuse.
 */
export async function* fileBatches(file: string, limits: BatchLimits, startLine = 1): AsyncGenerator<Batch> {
  let batch = emptyBatch(0);
  for await (const { text, utf8, size: bytes, number, offset } of fileLines(file, limits)) {
    if (number >= startLine && !utf8) {
      batch.notUtf8.push(number);
      continue;
    }
    if (number < startLine || (text !== undefined && text.trim() === '')) {
      if (batch.lines.length === 0) batch.bytes = offset;
      continue;
    }
    const size = bytes + 1;
    if (batch.lines.length > 0 && batch.body + size > limits.bodyBytes) {
      yield batch;
      batch = emptyBatch(batch.bytes);
    }
    // a line over the limit keeps no text: its batch is refused by its size
    batch.lines.push(text ?? '');
    batch.lineNumbers.push(number);
    batch.bytes = offset;
    batch.body += size;
    if (batch.lines.length >= limits.records || batch.body >= limits.bodyBytes) {
      yield batch;
      batch = emptyBatch(offset);
    }
  }
  if (batch.lines.length > 0 || batch.notUtf8.length > 0) yield batch;
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
  return { lines: [], lineNumbers: [], bytes, body: 0, notUtf8: [] };
}

/** How many lines FILE has, numbered as fileBatches numbers them (a last line without LF counts). */
export async function countLines(file: string): Promise<number> {
  let count = 0;
  let open = false;
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) count++;
    open = chunk.length > 0 && chunk[chunk.length - 1] !== 10;
  }
  return open ? count + 1 : count;
}
