import type { StreamPosition, TailRead } from './log-tail.js';

// Reading the next batch while the one before is in flight: the files are read during the
// peer's round trip instead of after it. The read is only a guess at what comes next: it is
// taken when the stream's cursor is where the read began (the batch before was delivered in
// full) and it found records; anything else is thrown away and read again.

/** One read started ahead of time for a sink. */
export class ReadAhead {
  private pending: { stream: string; from: StreamPosition; read: Promise<TailRead | undefined> } | undefined;

  /** Start reading `stream` after `from` (a failure is forgotten: the read is done again in turn). */
  start(stream: string, from: StreamPosition, read: () => Promise<TailRead>): void {
    this.pending = { stream, from, read: read().catch(() => undefined) };
  }

  /** The read started for `stream` at `pos`, if there is one and it found records; it is used once. */
  async take(stream: string, pos: StreamPosition): Promise<TailRead | undefined> {
    const pending = this.pending;
    if (!pending || pending.stream !== stream || pending.from.file !== pos.file || pending.from.offset !== pos.offset) return undefined;
    this.pending = undefined;
    const read = await pending.read;
    return read && read.records.length > 0 ? read : undefined;
  }

  /** Throw away what was read ahead (a stop, a stream that moved otherwise). */
  drop(): void {
    this.pending = undefined;
  }
}
