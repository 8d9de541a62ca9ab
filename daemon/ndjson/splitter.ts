import { isAscii } from 'node:buffer';

// Cutting bytes into whole lines: the one line splitter every reader of the recorded files
// feeds (plain or decompressed, synchronous at start-up or asynchronous for queries). A line
// longer than a chunk is kept in pieces and joined once, when it ends.

/** Called for each whole, non-empty line (without its newline) with its start and end offsets (end is past the newline). */
export type OnLine = (line: string, start: number, end: number) => void;

/** Whole lines out of consecutive chunks of bytes that start at a line's start. */
export class LineSplitter {
  private readonly onLine: OnLine;
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private lineStart: number;

  /**
   * `start`: the offset of the first byte pushed (the start of a line). `sliced`: ASCII chunks
   * are decoded once and each line is a slice of that text, which holds the whole chunk's text
   * while the line lives: only for readers that keep no line (a night report's fold).
   */
  constructor(start: number, onLine: OnLine, private readonly sliced = false) {
    this.lineStart = start;
    this.onLine = onLine;
  }

  /** The offset just after the last whole line. */
  get end(): number {
    return this.lineStart;
  }

  /** Bytes pushed after the last whole line (a line not ended yet, or a torn tail). */
  get tornBytes(): number {
    return this.carryBytes;
  }

  /** Go on at `start` (the start of a line) after a gap: bytes held of an unended line are dropped. */
  skipTo(start: number): void {
    this.carry = [];
    this.carryBytes = 0;
    this.lineStart = start;
  }

  /** Take the next bytes (the buffer may be reused by the caller afterwards). */
  push(data: Buffer): void {
    // all ASCII (what Meridian writes, mostly) and sliced: decoded once, each line a slice of
    // that text (no copy per line: a night report cuts a million lines), offsets the same in bytes
    if (this.sliced && isAscii(data)) return this.pushAscii(data);
    let start = 0;
    const at = this.lineStart + this.carryBytes;
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
      const lineStart = this.lineStart;
      const lineEnd = at + nl + 1;
      if (this.carry.length === 0) {
        if (nl > start) this.onLine(data.toString('utf8', start, nl), lineStart, lineEnd);
      } else {
        this.onLine(Buffer.concat([...this.carry, data.subarray(start, nl)]).toString('utf8'), lineStart, lineEnd);
        this.carry = [];
        this.carryBytes = 0;
      }
      start = nl + 1;
      this.lineStart = lineEnd;
    }
    if (start < data.length) {
      this.carry.push(Buffer.from(data.subarray(start)));
      this.carryBytes += data.length - start;
    }
  }

  private pushAscii(data: Buffer): void {
    let from = 0;
    if (this.carry.length > 0) {
      // the line begun in an earlier chunk ends in this one (or goes on past it)
      const nl = data.indexOf(10);
      if (nl === -1) return this.keep(data, 0);
      const lineEnd = this.lineStart + this.carryBytes + nl + 1;
      this.onLine(Buffer.concat([...this.carry, data.subarray(0, nl)]).toString('utf8'), this.lineStart, lineEnd);
      this.carry = [];
      this.carryBytes = 0;
      this.lineStart = lineEnd;
      from = nl + 1;
    }
    const text = data.toString('latin1', from);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      const lineStart = this.lineStart;
      this.lineStart = lineStart + nl + 1 - start;
      if (nl > start) this.onLine(text.slice(start, nl), lineStart, this.lineStart);
      start = nl + 1;
    }
    if (from + start < data.length) this.keep(data, from + start);
  }

  // bytes of an unended line kept (copied: the caller reuses its buffer)
  private keep(data: Buffer, from: number): void {
    this.carry.push(Buffer.from(data.subarray(from)));
    this.carryBytes += data.length - from;
  }
}
