import type { LineFile } from './line-file.js';
import type { Target } from './target.js';
import type { Reading } from './current-view.js';

// Lines stamped during one event-loop turn, written to their target with one write.

/** One stamped event waiting for the write of its turn. */
export interface Queued {
  reading: Reading;
  makeCurrent: boolean;
}

/**
 * The events of one turn for one target, in seq order. `done` settles once their lines are
 * handed to the OS (all of them, or none: the file is cut back on failure).
 */
export class WriteBatch {
  readonly target: Target;
  readonly entries: Queued[] = [];
  readonly done: Promise<LineFile>;
  private settle!: { resolve: (file: LineFile) => void; reject: (error: unknown) => void };

  constructor(target: Target) {
    this.target = target;
    this.done = new Promise<LineFile>((resolve, reject) => { this.settle = { resolve, reject }; });
  }

  /** The seq the next event of this batch gets. */
  get nextSeq(): number {
    return this.target.seq + this.entries.length + 1;
  }

  /** Write every line (held seqs first) in one go; resolves or rejects `done`. Returns the file, or throws. */
  write(): LineFile {
    const lines = this.entries.map((e) => `${e.reading.json}\n`).join('');
    const held = this.entries.filter((e) => !e.makeCurrent).map((e) => `${e.reading.envelope.seq}\n`).join('');
    try {
      const file = this.target.write(lines, held);
      this.target.seq += this.entries.length;
      this.settle.resolve(file);
      return file;
    } catch (error) {
      this.settle.reject(error);
      throw error;
    }
  }
}
