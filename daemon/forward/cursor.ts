import fs from 'node:fs';
import { promisify } from 'node:util';
import { plainName } from '../ndjson/names.js';
import type { StreamPosition } from './log-tail.js';

// A sink's cursor: per stream, the position of the last record the sink acknowledged, and how
// far along the store's timeline the sink has taken runs in (so a run recorded while the sink
// was down is found again after a restart). It is written atomically (temp file, rename) and
// only after an acknowledgement, in the background: the next batch is read while it is
// written, and sent only once it is written, so a crash of the daemon at any moment leaves the
// last acknowledged position or the one before it (at most one batch sent twice). The fsync
// that makes it survive a power cut too costs more than a batch: it follows the daemon's
// --fsync mode (every write, at most once a second, never).

const FORMAT = 1;
const [open, write, fsync, close, rename] = [promisify(fs.open), promisify(fs.write), promisify(fs.fsync), promisify(fs.close), promisify(fs.rename)];
/** The most skipped stretches a cursor keeps (the oldest go first). */
const SKIPPED_KEPT = 20;

/** What a cursor file holds. */
export interface CursorFile {
  format: number;
  sink: string;
  /** Stream name -> position after its last acknowledged record, in the order streams appeared. */
  streams: Record<string, StreamPosition>;
  /** Segments of the store's timeline whose runs the sink has taken in (absent in cursors of earlier versions). */
  timeline?: number;
  /** What the sink could not read and passed over, one sentence each (absent when nothing was). */
  skipped?: string[];
}

/** Read a sink's cursor; undefined when it has none yet, an Error saying why when it is unusable. */
export function readCursor(file: string): CursorFile | undefined | Error {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return error as Error;
  }
  try {
    const cursor = JSON.parse(raw) as CursorFile;
    if (cursor?.format !== FORMAT || typeof cursor.streams !== 'object' || cursor.streams === null) {
      return new Error(`${file} is not a cursor of format ${FORMAT}`);
    }
    for (const pos of Object.values(cursor.streams)) {
      if (typeof pos?.file !== 'string' || !Number.isSafeInteger(pos.offset) || !Number.isSafeInteger(pos.seq)) {
        return new Error(`${file} holds an incomplete stream position`);
      }
    }
    if (cursor.timeline !== undefined && !(Number.isSafeInteger(cursor.timeline) && cursor.timeline >= 0)) {
      return new Error(`${file} holds a timeline mark that is no count`);
    }
    if (cursor.skipped !== undefined && !(Array.isArray(cursor.skipped) && cursor.skipped.every((s) => typeof s === 'string'))) {
      return new Error(`${file} holds a skipped list that is not a list of texts`);
    }
    return cursor;
  } catch (error) {
    return new Error(`${file} is not valid JSON (${(error as Error).message})`);
  }
}

/** Write a sink's cursor atomically (its directory exists: forwarding creates it at start); `sync`: fsync it before the rename. */
export async function writeCursor(file: string, body: CursorFile, sync = true): Promise<void> {
  // a power cut may leave the previous cursor: records are then sent again, never skipped.
  // Plain descriptors, not FileHandles: this runs once a batch, and a FileHandle costs more
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = await open(tmp, 'w');
  try {
    const text = Buffer.from(JSON.stringify(body), 'utf8');
    const { bytesWritten } = await write(fd, text, 0, text.length, 0);
    if (bytesWritten !== text.length) throw Object.assign(new Error(`short write to ${tmp}: ${bytesWritten} of ${text.length} bytes`), { code: 'EIO' });
    if (sync) await fsync(fd);
  } finally {
    await close(fd);
  }
  await rename(tmp, file);
}

/** How a cursor is written: what to call on a failed write, how often to fsync it (0: every write; Infinity: never), the clock. */
export interface CursorWriting {
  onSaveError(error: unknown): void;
  syncEveryMs: number;
  now(): number;
}

/** A sink's cursor as the loop uses it: positions per stream, saved in the background on every move. */
export class SinkCursor {
  readonly file: string;
  private readonly sink: string;
  private readonly writing: CursorWriting;
  private syncedAt = -Infinity;
  private lastWrite = -Infinity;
  private syncNext = false;
  private streams: Record<string, StreamPosition> = {};
  private timelineMark: number | undefined;
  private skippedList: string[] = [];
  private saving: Promise<void> | undefined;
  private dirty = false;

  constructor(file: string, sink: string, writing: CursorWriting) {
    this.file = file;
    this.sink = sink;
    this.writing = writing;
  }

  /** Load the saved positions; false when there were none (or they were unusable: the Error says why). */
  load(): boolean | Error {
    const saved = readCursor(this.file);
    if (saved === undefined || saved instanceof Error) return saved ?? false;
    this.streams = saved.streams;
    this.timelineMark = saved.timeline;
    this.skippedList = saved.skipped ?? [];
    return true;
  }

  /** The streams in the order they appeared, with their positions. */
  entries(): [string, StreamPosition][] {
    return Object.entries(this.streams);
  }

  has(stream: string): boolean {
    return stream in this.streams;
  }

  /** How many segments of the timeline the sink has taken runs from (undefined: a cursor of an earlier version). */
  get timeline(): number | undefined {
    return this.timelineMark;
  }

  /** What was passed over, oldest first. */
  get skipped(): readonly string[] {
    return this.skippedList;
  }

  /** Start following a stream at `position`. */
  add(stream: string, position: StreamPosition): void {
    this.streams[stream] = position;
    this.schedule();
  }

  /** The runs of the timeline's first `segments` segments are taken in. */
  markTimeline(segments: number): void {
    if (this.timelineMark === segments) return;
    this.timelineMark = segments;
    this.schedule();
  }

  /** Note a stretch that could not be read and was passed over (kept in the cursor: /status shows it). */
  skip(what: string): void {
    // a batch read again (after a linger, a retry) passes over the same stretch again
    if (this.skippedList.includes(what)) return;
    this.skippedList = [...this.skippedList, what].slice(-SKIPPED_KEPT);
    this.schedule();
  }

  /** Move a stream to `position` (saved in the background), unless it is there already. */
  moveTo(stream: string, position: StreamPosition): void {
    const old = this.streams[stream];
    if (old && old.file === position.file && old.offset === position.offset) return;
    this.streams[stream] = position;
    this.schedule();
  }

  /** Stop following a stream (a stopped run forwarded to its end). */
  forget(stream: string): void {
    delete this.streams[stream];
    this.schedule();
  }

  /** Resolves once every change made so far is on disk (or failed to be written: logged). Never rejects. */
  flushed(): Promise<void> {
    return this.saving ?? Promise.resolve();
  }

  /** Write the cursor once more, synced unless the mode says never (a stop). Never rejects. */
  async close(): Promise<void> {
    await this.flushed();
    if (this.writing.syncEveryMs === Infinity || this.syncedAt >= this.lastWrite) return;
    this.syncNext = true;
    this.schedule();
    await this.flushed();
  }


  private schedule(): void {
    this.dirty = true;
    this.saving ??= this.saveLoop();
  }

  // one write at a time; changes made while one runs are written by the next
  private async saveLoop(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        const body: CursorFile = { format: FORMAT, sink: this.sink, streams: { ...this.streams } };
        if (this.timelineMark !== undefined) body.timeline = this.timelineMark;
        if (this.skippedList.length > 0) body.skipped = this.skippedList;
        const now = this.writing.now();
        const sync = this.syncNext || now - this.syncedAt >= this.writing.syncEveryMs;
        this.syncNext = false;
        try {
          await writeCursor(this.file, body, sync);
          this.lastWrite = now;
          if (sync) this.syncedAt = now;
        } catch (error) {
          this.writing.onSaveError(error);
        }
      }
    } finally {
      this.saving = undefined;
    }
  }
}

/**
 * Whether a sink at `positions` has read all of `file` (a plain path; `size` is its length,
 * Infinity when it is stored compressed): a stream whose position is in the file has reached
 * its end, and the site stream has moved on to a later day file. A file no stream names (a
 * run stopped before the sink existed) holds nothing back.
 */
export function deliveredAll(positions: readonly (readonly [string, StreamPosition])[], file: string, size: number): boolean {
  const dayFile = /site_(\d{8})\.ndjson$/.exec(file)?.[1];
  for (const [stream, position] of positions) {
    if (plainName(position.file) === file && position.offset < size) return false;
    if (stream === 'site' && dayFile !== undefined) {
      const at = /site_(\d{8})\.ndjson(?:\.gz)?$/.exec(position.file)?.[1];
      if (at === undefined || at < dayFile) return false;
    }
  }
  return true;
}
