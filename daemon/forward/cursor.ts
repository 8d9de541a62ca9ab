import fs from 'node:fs';
import path from 'node:path';
import type { StreamPosition } from './log-tail.js';

// A sink's cursor: per stream, the position of the last record the sink acknowledged. It is
// written atomically (temp file, fdatasync, rename) and only after an acknowledgement, so a
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

/** Write a sink's cursor atomically (the directory is created on first use). */
export function writeCursor(file: string, sink: string, streams: Record<string, StreamPosition>): void {
  const body: CursorFile = { format: FORMAT, sink, streams };
  const tmp = `${file}.tmp`;
  let fd: number;
  try {
    fd = fs.openSync(tmp, 'w');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fd = fs.openSync(tmp, 'w');
  }
  try {
    fs.writeSync(fd, JSON.stringify(body));
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
