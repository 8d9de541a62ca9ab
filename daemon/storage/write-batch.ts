import type { LineFile } from './line-file.js';
import type { Target } from './target.js';
import type { Reading } from './current-view.js';

// Lines stamped during one event-loop turn, written to their target with one write.

/** One stamped event waiting for the write of its turn. */
export interface Queued {
  reading: Reading;
  makeCurrent: boolean;
  /** false: an ephemeral reading (a seq and a view update, no line in the target's file). */
  permanent: boolean;
}

/**
 * The events of one turn for one target, in seq order. `done` settles once their lines are
 * handed to the OS (all of them, or none: the files are cut back on failure); it resolves
 * the target's file, or undefined when every event of the batch was ephemeral.
 */
export class WriteBatch {
  readonly target: Target;
  readonly entries: Queued[] = [];
  readonly done: Promise<LineFile | undefined>;
  private settle!: { resolve: (file: LineFile | undefined) => void; reject: (error: unknown) => void };

  constructor(target: Target) {
    this.target = target;
    this.done = new Promise<LineFile | undefined>((resolve, reject) => { this.settle = { resolve, reject }; });
  }

  /** The seq the next event of this batch gets. */
  get nextSeq(): number {
    return this.target.seq + this.entries.length + 1;
  }

  /** Write every line (side files first) in one go; resolves or rejects `done`. Returns the file, or throws. */
  write(): LineFile | undefined {
    let lines = '';
    let held = '';
    let ephemeral = '';
    for (const e of this.entries) {
      if (e.permanent) lines += `${e.reading.json}\n`;
      else ephemeral += `${e.reading.json}\n`;
      if (!e.makeCurrent) held += `${e.reading.seq}\n`;
    }
    try {
      const file = this.target.write(lines, held, ephemeral);
      this.target.seq += this.entries.length;
      this.settle.resolve(file);
      return file;
    } catch (error) {
      this.settle.reject(error);
      throw error;
    }
  }
}
