// Large JSON answers and files built as a list of UTF-8 chunks instead of one string: a
// current view of many types with large `data` can pass the longest string V8 can hold
// (~512 Mi characters), so no code path may join all of it at once.

/** The largest chunk made by default (characters before encoding; ~1 MiB of ASCII). */
export const DEFAULT_CHUNK_CHARS = 1024 * 1024;

/**
 * Text assembled from pieces into UTF-8 chunks of about `chunkChars` characters (a piece is
 * never split). With a `sink` each chunk is handed to it as soon as it is full (a file
 * written piece by piece) instead of being kept.
 */
export class ChunkedText {
  private readonly chunkChars: number;
  private readonly chunks: Buffer[] = [];
  private readonly sink: ((chunk: Buffer) => void) | undefined;
  private pending: string[] = [];
  private pendingChars = 0;

  constructor(chunkChars: number = DEFAULT_CHUNK_CHARS, sink?: (chunk: Buffer) => void) {
    this.chunkChars = chunkChars;
    this.sink = sink;
  }

  /** Append a piece; a chunk is closed once it holds `chunkChars` characters or more. */
  add(piece: string): void {
    this.pending.push(piece);
    this.pendingChars += piece.length;
    if (this.pendingChars >= this.chunkChars) this.flush();
  }

  /** The chunks, in order (one for a text shorter than `chunkChars`; none kept with a sink). */
  finish(): Buffer[] {
    this.flush();
    return this.chunks;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    if (this.sink) this.sink(chunk); else this.chunks.push(chunk);
    this.pending = [];
    this.pendingChars = 0;
  }
}

/** The total byte length of `chunks`. */
export function chunksLength(chunks: readonly Buffer[]): number {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  return length;
}
