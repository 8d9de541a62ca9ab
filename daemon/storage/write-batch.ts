import type { LineFile } from './line-file.js';
import type { Target } from './target.js';
import { ChunkedText } from './chunked-text.js';
import type { Reading } from './current-view.js';
import { withSeq } from './envelope-line.js';

// Lines stamped during one event-loop turn, written to their target with one write; when
// that write fails, written again one event at a time, so that only the events that do not
// fit fail (and use no seq: the later ones are renumbered).

/** One stamped event waiting for the write of its turn. */
export interface Queued {
  /** Its envelope; a new one (another seq) when an event before it failed. */
  reading: Reading;
  makeCurrent: boolean;
  /** false: an ephemeral reading (a seq and a view update, no line in the target's file). */
  permanent: boolean;
  /** Why this event's own write failed (it was not recorded); undefined once written. */
  failure?: unknown;
}

/** What a batch's write did: the target's file (undefined: no line went to it) and the events that failed. */
export interface BatchOutcome {
  file: LineFile | undefined;
  failed: number;
  /** The first failure (for the log), undefined when every event was written. */
  error: unknown;
}

/**
 * The events of one turn for one target, in seq order. `done` settles once their lines are
 * handed to the OS: it resolves the target's file (undefined when no line went to it), each
 * event that could not be written carrying its `failure`; it rejects when the write of the
 * batch failed with no retry one event at a time. A `whole` batch (POST /events: every line
 * or none) is judged by what `write()` returns: its `done` never rejects.
 */
export class WriteBatch {
  readonly target: Target;
  readonly entries: Queued[] = [];
  readonly done: Promise<LineFile | undefined>;
  /** true: the events stand or fall together (one write, no retry one at a time). */
  readonly whole: boolean;
  private settle!: { resolve: (file: LineFile | undefined) => void; reject: (error: unknown) => void };

  constructor(target: Target, whole = false) {
    this.target = target;
    this.whole = whole;
    this.done = new Promise<LineFile | undefined>((resolve, reject) => { this.settle = { resolve, reject }; });
  }

  /** The seq the next event of this batch gets. */
  get nextSeq(): number {
    return this.target.seq + this.entries.length + 1;
  }

  /**
   * Write every line (side files first) in one go; if that fails, and the batch is not whole,
   * each event on its own, in order, renumbered after a failure so that seqs stay contiguous.
   * Settles `done` and returns what happened.
   */
  write(): BatchOutcome {
    let file: LineFile | undefined;
    try {
      file = writeLines(this.target, this.entries, this.whole);
    } catch (error) {
      // the file could not be cut back: no retry (it is reopened, its partial line cut, on the next turn)
      if (this.whole || this.entries.length === 1 || !this.target.writable) {
        for (const e of this.entries) e.failure = error;
        if (this.whole) this.settle.resolve(undefined);
        else this.settle.reject(error);
        return { file: undefined, failed: this.entries.length, error };
      }
      return this.writeOneByOne(error);
    }
    this.target.seq += this.entries.length;
    this.settle.resolve(file);
    return { file, failed: 0, error: undefined };
  }

  private writeOneByOne(first: unknown): BatchOutcome {
    let file: LineFile | undefined;
    let failed = 0;
    for (const e of this.entries) {
      e.reading = withSeq(e.reading, this.target.seq + 1);
      try {
        file = writeLines(this.target, [e]) ?? file;
        this.target.seq++;
      } catch (error) {
        e.failure = error;
        failed++;
      }
    }
    this.settle.resolve(file);
    return { file, failed, error: first };
  }
}

// lines go out as UTF-8 chunks of about this many characters: one string of a whole batch of
// thousands of lines would be allocated straight into the old generation
const CHUNK_CHARS = 32_768;

/** Write the lines of `entries` to the target: held seqs, ephemeral lines, then the permanent lines (`whole`: through the batch journal). */
function writeLines(target: Target, entries: readonly Queued[], whole = false): LineFile | undefined {
  const lines = new ChunkedText(CHUNK_CHARS);
  const held = new ChunkedText(CHUNK_CHARS);
  const ephemeral = new ChunkedText(CHUNK_CHARS);
  for (const e of entries) {
    (e.permanent ? lines : ephemeral).add(`${e.reading.json}\n`);
    if (!e.makeCurrent) held.add(`${e.reading.seq}\n`);
  }
  const seqs: [number, number] | undefined = whole ? [entries[0]!.reading.seq, entries.at(-1)!.reading.seq] : undefined;
  return target.write(lines.finish(), held.finish(), ephemeral.finish(), seqs);
}
