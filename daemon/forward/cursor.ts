import fs from 'node:fs';
import { writeJsonAtomic } from '../storage/state-files.js';
import type { StreamPosition } from './log-tail.js';

// A sink's cursor: per stream, the position of the last record the sink acknowledged. It is
// written atomically (temp file, fsync, rename) and only after an acknowledgement, so a
// crash at any moment leaves the last acknowledged position or the one before it.

const FORMAT = 1;

/** What a cursor file holds. */
export interface CursorFile {
  format: number;
  sink: string;
  /** Stream name -> position after its last acknowledged record, in the order streams appeared. */
  streams: Record<string, StreamPosition>;
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
    return cursor;
  } catch (error) {
    return new Error(`${file} is not valid JSON (${(error as Error).message})`);
  }
}

/** Write a sink's cursor atomically (its directory exists: forwarding creates it at start). */
export function writeCursor(file: string, sink: string, streams: Record<string, StreamPosition>): void {
  const body: CursorFile = { format: FORMAT, sink, streams };
  // a power cut may leave the previous cursor: records are then sent again, never skipped
  writeJsonAtomic(file, body, undefined, { syncDir: false });
}

/** A sink's cursor as the loop uses it: positions per stream, saved on every move. */
export class SinkCursor {
  readonly file: string;
  private readonly sink: string;
  private readonly onSaveError: (error: unknown) => void;
  private streams: Record<string, StreamPosition> = {};

  constructor(file: string, sink: string, onSaveError: (error: unknown) => void) {
    this.file = file;
    this.sink = sink;
    this.onSaveError = onSaveError;
  }

  /** Load the saved positions; false when there were none (or they were unusable: the Error says why). */
  load(): boolean | Error {
    const saved = readCursor(this.file);
    if (saved === undefined || saved instanceof Error) return saved ?? false;
    this.streams = saved.streams;
    return true;
  }

  /** The streams in the order they appeared, with their positions. */
  entries(): [string, StreamPosition][] {
    return Object.entries(this.streams);
  }

  has(stream: string): boolean {
    return stream in this.streams;
  }

  /** Start following a stream at `position` (saved with the next move). */
  add(stream: string, position: StreamPosition): void {
    this.streams[stream] = position;
  }

  /** Move a stream to `position` and save, unless it is there already. */
  moveTo(stream: string, position: StreamPosition): void {
    const old = this.streams[stream];
    if (old && old.file === position.file && old.offset === position.offset) return;
    this.streams[stream] = position;
    this.save();
  }

  /** Stop following a stream (a stopped run forwarded to its end). */
  forget(stream: string): void {
    delete this.streams[stream];
    this.save();
  }

  private save(): void {
    try {
      writeCursor(this.file, this.sink, this.streams);
    } catch (error) {
      this.onSaveError(error);
    }
  }
}

/**
 * Whether a sink at `positions` has read all of `file` (whose length is `size`): a stream
 * whose position is in the file has reached its end, and the site stream has moved on to a
 * later day file. A file no stream names (a run stopped before the sink existed) holds
 * nothing back.
 */
export function deliveredAll(positions: readonly (readonly [string, StreamPosition])[], file: string, size: number): boolean {
  const dayFile = /site_(\d{8})\.ndjson$/.exec(file)?.[1];
  for (const [stream, position] of positions) {
    if (position.file === file && position.offset < size) return false;
    if (stream === 'site' && dayFile !== undefined) {
      const at = /site_(\d{8})\.ndjson$/.exec(position.file)?.[1];
      if (at === undefined || at < dayFile) return false;
    }
  }
  return true;
}
