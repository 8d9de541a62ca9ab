import { plainName, siteDayOf } from '../ndjson/names.js';
import { CursorWriter, loadCursor, type CursorFile, type CursorSync } from './cursor-file.js';
import type { StreamPosition } from './log-tail.js';

// A sink's cursor: per stream, the position of the last record the sink acknowledged, and how
// far along the store's timeline the sink has taken runs in (so a run recorded while the sink
// was down is found again after a restart). It is written only after an acknowledgement, in
// the background: the next batch is read while it is written, and sent only once it is
// written, so a crash of the daemon at any moment leaves the last acknowledged position or
// the one before it (at most one batch sent twice). How it is written: cursor-file.ts.

const FORMAT = 1;
/** The most skipped stretches a cursor keeps (the oldest go first). */
const SKIPPED_KEPT = 20;

/** How a cursor is written: what to call on a failed write, how (the daemon's --fsync mode), the clock. */
export interface CursorWriting {
  onSaveError(error: unknown): void;
  /** A write succeeded (after failures: the cursor is on disk again). */
  onSaved?(): void;
  sync: CursorSync;
  now(): number;
  /** How files are recorded (relative inside the site directory) and read back (where they are now): storage/site-places.ts. */
  places?: { record(file: string): string; place(recorded: string): string };
}

/** A sink's cursor as the loop uses it: positions per stream, saved in the background on every move. */
export class SinkCursor {
  readonly file: string;
  private readonly sink: string;
  private readonly writing: CursorWriting;
  private readonly writer: CursorWriter;
  private streams: Record<string, StreamPosition> = {};
  private timelineMark: number | undefined;
  private skippedList: string[] = [];
  private generation = 0;
  private saving: Promise<void> | undefined;
  private dirty = false;
  private wholeNext = false;

  constructor(file: string, sink: string, writing: CursorWriting) {
    this.file = file;
    this.sink = sink;
    this.writing = writing;
    this.writer = new CursorWriter(file, writing.sync);
  }

  /** Load the saved positions; false when there were none (or they were unusable: the Error says why). */
  load(): boolean | Error {
    const saved = loadCursor(this.file);
    if (saved === undefined || saved instanceof Error) return saved ?? false;
    const { places } = this.writing;
    // a site directory moved or copied: each position's file where it is now
    this.streams = places ? Object.fromEntries(Object.entries(saved.streams).map(([s, p]) => [s, { ...p, file: places.place(p.file) }])) : saved.streams;
    this.timelineMark = saved.timeline;
    this.skippedList = saved.skipped ?? [];
    this.generation = saved.generation ?? 0;
    return true;
  }

  /** The streams in the order they appeared, with their positions. */
  entries(): [string, StreamPosition][] {
    return Object.entries(this.streams);
  }

  /** The position of a stream, if the cursor follows it. */
  at(stream: string): StreamPosition | undefined {
    return this.streams[stream];
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

  /** Resolves once every change made so far is written (or failed to be: logged). Never rejects. */
  flushed(): Promise<void> {
    return this.saving ?? Promise.resolve();
  }

  /** Write the cursor file whole once more (a stop) and close. Never rejects. */
  async close(): Promise<void> {
    await this.flushed();
    if (this.generation > 0) {
      this.wholeNext = true;
      this.schedule();
      await this.flushed();
    }
    await this.writer.close().catch((error: unknown) => this.writing.onSaveError(error));
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
        const whole = this.wholeNext;
        this.wholeNext = false;
        const { places } = this.writing;
        const streams = places ? Object.fromEntries(Object.entries(this.streams).map(([s, p]) => [s, { ...p, file: places.record(p.file) }])) : { ...this.streams };
        const body: CursorFile = { format: FORMAT, sink: this.sink, generation: ++this.generation, streams };
        if (this.timelineMark !== undefined) body.timeline = this.timelineMark;
        if (this.skippedList.length > 0) body.skipped = this.skippedList;
        try {
          await this.writer.write(body, this.writing.now(), whole);
          this.writing.onSaved?.();
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
  const dayFile = siteDayOf(file);
  for (const [stream, position] of positions) {
    if (plainName(position.file) === file && position.offset < size) return false;
    if (stream === 'site' && dayFile !== undefined) {
      const at = siteDayOf(position.file);
      if (at === undefined || at < dayFile) return false;
    }
  }
  return true;
}
