import { lastSeq } from '../ndjson/ends.js';

// The newest seq recorded in each stream, for the lag of the sinks: kept up to date by the
// store's onRecorded listener, read from the file's tail for a stream not seen since start-up.

/** Newest seq per stream. */
export class StreamHeads {
  private readonly heads = new Map<string, number>();

  /** An event was recorded in `stream`. */
  note(stream: string, seq: number): void {
    this.heads.set(stream, seq);
  }

  /** The newest seq of a stream; `file` (its latest file) is read once when the stream was not seen yet. */
  seqOf(stream: string, file: string): number {
    let seq = this.heads.get(stream);
    if (seq === undefined) {
      try {
        seq = file === '' ? 0 : lastSeq(file);
      } catch {
        seq = 0;
      }
      this.heads.set(stream, seq);
    }
    return seq;
  }
}
