import fs from 'node:fs';
import { promisify } from 'node:util';
import type { StreamPosition } from './log-tail.js';

// A sink's cursor on disk: `<name>.cursor.json`, written whole (temp file, fsync, rename),
// and between those writes `<name>.cursor.json.next`, overwritten in place once a batch (one
// synchronous write into an open file: a rename per batch costs ms on ext4, which flushes the new file
// on a rename over an old one). Each write carries a generation; the newer of the two that
// reads whole wins. A crash of the daemon leaves both whole (a write is done or not); a power
// cut may tear the next file, and the cursor file (at most a second old under --fsync batch)
// is taken: records are sent again, never skipped. Without the cursor file there is no cursor.

const FORMAT = 1;
const [open, write, fsync, close, rename] = [promisify(fs.open), promisify(fs.write), promisify(fs.fsync), promisify(fs.close), promisify(fs.rename)];

/** What a cursor file holds. */
export interface CursorFile {
  format: number;
  sink: string;
  /** Counts the writes: of the two files, the higher one is the cursor. */
  generation?: number;
  /** Stream name -> position after its last acknowledged record, in the order streams appeared. */
  streams: Record<string, StreamPosition>;
  /** Segments of the store's timeline whose runs the sink has taken in (absent in cursors of earlier versions). */
  timeline?: number;
  /** What the sink could not read and passed over, one sentence each (absent when nothing was). */
  skipped?: string[];
}

/** How often the whole cursor file is written (ms) and whether that write is fsynced: the daemon's --fsync mode. */
export interface CursorSync {
  wholeEveryMs: number;
  fsync: boolean;
}

/** Read one cursor file; undefined when it is not there, an Error saying why when it is unusable. */
export function readCursor(file: string): CursorFile | undefined | Error {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return error as Error;
  }
  try {
    return checked(JSON.parse(raw) as CursorFile, file);
  } catch (error) {
    return new Error(`${file} is not valid JSON (${(error as Error).message})`);
  }
}

function checked(cursor: CursorFile, file: string): CursorFile | Error {
  if (cursor?.format !== FORMAT || typeof cursor.streams !== 'object' || cursor.streams === null) return new Error(`${file} is not a cursor of format ${FORMAT}`);
  for (const pos of Object.values(cursor.streams)) {
    if (typeof pos?.file !== 'string' || !Number.isSafeInteger(pos.offset) || !Number.isSafeInteger(pos.seq)) return new Error(`${file} holds an incomplete stream position`);
  }
  for (const key of ['timeline', 'generation'] as const) {
    const n = cursor[key];
    if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) return new Error(`${file} holds a ${key} that is no count`);
  }
  if (cursor.skipped !== undefined && !(Array.isArray(cursor.skipped) && cursor.skipped.every((s) => typeof s === 'string'))) {
    return new Error(`${file} holds a skipped list that is not a list of texts`);
  }
  return cursor;
}

/** The cursor of a sink: its cursor file, or the next file when that is newer and whole (without a usable cursor file, a next file left over is removed). */
export function loadCursor(file: string): CursorFile | undefined | Error {
  const whole = readCursor(file);
  if (whole === undefined || whole instanceof Error) {
    // a cursor deleted to start a sink afresh: what was written after it must not count
    fs.rmSync(`${file}.next`, { force: true });
    return whole;
  }
  const next = readCursor(`${file}.next`);
  if (next === undefined || next instanceof Error || next.sink !== whole.sink) return whole;
  return (next.generation ?? 0) > (whole.generation ?? 0) ? next : whole;
}

/** Writes a sink's cursor: whole now and then, in place in between. */
export class CursorWriter {
  private readonly file: string;
  private readonly sync: CursorSync;
  private wholeAt = -Infinity;
  private nextFd: number | undefined;
  private nextBytes = 0;

  constructor(file: string, sync: CursorSync) {
    this.file = file;
    this.sync = sync;
  }

  /** Write `body` (its generation set by the caller); `whole`: as the cursor file, whatever the time. */
  async write(body: CursorFile, nowMs: number, whole = false): Promise<void> {
    const text = JSON.stringify(body);
    if (whole || nowMs - this.wholeAt >= this.sync.wholeEveryMs) {
      await writeWhole(this.file, text, this.sync.fsync);
      this.wholeAt = nowMs;
      return;
    }
    this.nextFd ??= await open(`${this.file}.next`, 'w');
    // padded with spaces to the longest written before: no bytes of an older cursor are left after it
    const bytes = Buffer.from(text, 'utf8');
    const buf = bytes.length >= this.nextBytes ? bytes : Buffer.concat([bytes, Buffer.alloc(this.nextBytes - bytes.length, 0x20)]);
    // a write of a few hundred bytes into the page cache, on the loop: the next batch waits for
    // it, and a trip to the thread pool cost more than the write (0.4-0.5 ms a batch on a busy machine)
    const bytesWritten = fs.writeSync(this.nextFd, buf, 0, buf.length, 0);
    if (bytesWritten !== buf.length) throw Object.assign(new Error(`short write to ${this.file}.next`), { code: 'EIO' });
    this.nextBytes = Math.max(this.nextBytes, buf.length);
  }

  /** Close the next file. */
  async close(): Promise<void> {
    const fd = this.nextFd;
    this.nextFd = undefined;
    if (fd !== undefined) await close(fd);
  }
}

// temp file, (fsync,) rename: the old cursor file or the new one, whole
async function writeWhole(file: string, text: string, sync: boolean): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  const buf = Buffer.from(text, 'utf8');
  const fd = await open(tmp, 'w');
  try {
    try {
      const { bytesWritten } = await write(fd, buf, 0, buf.length, 0);
      if (bytesWritten !== buf.length) throw Object.assign(new Error(`short write to ${tmp}: ${bytesWritten} of ${buf.length} bytes`), { code: 'EIO' });
      if (sync) await fsync(fd);
    } finally {
      await close(fd);
    }
    await rename(tmp, file);
  } catch (error) {
    // a full disk: no temp file left behind, the cursor file as it was
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  }
}
