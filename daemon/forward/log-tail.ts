import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { listSiteFiles } from '../ndjson/names.js';
import { envelopeHead, type ForwardRecord } from './record.js';

// The log tail: reads the envelopes recorded after a position, straight from the NDJSON
// files (the site day files in name order, or one run's file). The files are the backlog:
// nothing is kept in memory between reads.

/** Where a stream has been read up to: the file, the byte offset after the last line taken, its seq. */
export interface StreamPosition {
  file: string;
  offset: number;
  seq: number;
}

/** How much one read may return. */
export interface TailLimits {
  records: number;
  bytes: number;
}

/** What one read gave. */
export interface TailRead {
  records: ForwardRecord[];
  /** The position after the records returned (unchanged when there were none). */
  position: StreamPosition;
  /** True when the read reached the end of what is on disk now. */
  atEnd: boolean;
  /** Lines that were not envelopes (passed over). */
  skipped: number;
}

/** Reads envelopes after a position from the site files or a run file. */
export class LogTail {
  private readonly siteDir: string;
  // average bytes per line seen so far: a read asks for about as many bytes as a batch needs
  private lineBytes = 512;

  constructor(siteDir: string) {
    this.siteDir = siteDir;
  }

  /** Where a stream starts when no cursor exists: the oldest site file, or the run file at its start offset. */
  startOf(stream: string, runFile?: string, runStart = 0): StreamPosition {
    if (stream === 'site') return { file: listSiteFiles(this.siteDir)[0] ?? '', offset: 0, seq: 0 };
    return { file: runFile ?? '', offset: runStart, seq: 0 };
  }

  /** The end of a file as it is now (a sink told to start at the end of the log). */
  endOf(file: string, seq: number): StreamPosition {
    let size = 0;
    try {
      size = file === '' ? 0 : fsSync.statSync(file).size;
    } catch { /* not written yet */ }
    return { file, offset: size, seq };
  }

  /** Read the records after `pos` of a stream (`site` walks on through later day files). */
  async read(stream: string, pos: StreamPosition, limits: TailLimits): Promise<TailRead> {
    let at = pos;
    for (;;) {
      if (stream === 'site') at = this.siteFileFor(at);
      if (at.file === '') return { records: [], position: at, atEnd: true, skipped: 0 };
      const bytes = Math.min(limits.bytes, Math.max(64 * 1024, Math.ceil(limits.records * this.lineBytes * 1.25)));
      const got = await readLines(stream, at, { records: limits.records, bytes });
      if (got.records.length > 0 && got.position.file === at.file) {
        this.lineBytes = Math.max(64, (got.position.offset - at.offset) / got.records.length);
      }
      if (got.records.length > 0 || got.skipped > 0 || stream !== 'site') return got;
      // the day file is read to its end: move on when a later day file exists
      const next = listSiteFiles(this.siteDir).find((f) => path.basename(f) > path.basename(at.file));
      if (!next) return got;
      at = { file: next, offset: 0, seq: got.position.seq };
    }
  }

  // A position in a site file that no longer exists (removed by retention) moves to the next one.
  private siteFileFor(pos: StreamPosition): StreamPosition {
    const files = listSiteFiles(this.siteDir);
    if (pos.file !== '' && files.includes(pos.file)) return pos;
    const next = files.find((f) => pos.file === '' || path.basename(f) > path.basename(pos.file));
    return next ? { file: next, offset: 0, seq: pos.seq } : pos;
  }
}

async function readLines(stream: string, pos: StreamPosition, limits: TailLimits): Promise<TailRead> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(pos.file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], position: pos, atEnd: true, skipped: 0 };
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    // a file shorter than the position was replaced: read it again, passing over seqs already taken
    const restart = size < pos.offset;
    const from = restart ? 0 : pos.offset;
    const { buf, toEnd } = await readWholeLines(handle, from, size, limits.bytes);
    const records: ForwardRecord[] = [];
    let skipped = 0;
    let start = 0;
    let seq = pos.seq;
    for (let nl = buf.indexOf(10); nl !== -1 && records.length < limits.records; nl = buf.indexOf(10, start)) {
      const line = buf.toString('utf8', start, nl);
      start = nl + 1;
      const head = envelopeHead(line);
      if (!head) { if (line.trim() !== '') skipped++; continue; }
      if (restart && head.seq <= pos.seq) continue;
      records.push({ stream, seq: head.seq, ts: head.ts, type: head.type, line, file: pos.file, end: from + start });
      seq = head.seq;
    }
    const offset = from + start;
    return { records, position: { file: pos.file, offset, seq }, atEnd: toEnd && start >= buf.length, skipped };
  } finally {
    await handle.close();
  }
}

// Up to `limit` bytes from `from`, cut after the last newline; grows past the limit only for a
// single line longer than it. A line still being written (no newline yet) is left for later.
// `toEnd` says whether the bytes looked at reached the end of the file.
async function readWholeLines(handle: fs.FileHandle, from: number, size: number, limit: number): Promise<{ buf: Buffer; toEnd: boolean }> {
  let want = Math.min(limit, size - from);
  for (;;) {
    if (want <= 0) return { buf: Buffer.alloc(0), toEnd: true };
    const buf = Buffer.allocUnsafe(want);
    const { bytesRead } = await handle.read(buf, 0, want, from);
    const toEnd = from + bytesRead >= size;
    const last = bytesRead > 0 ? buf.lastIndexOf(10, bytesRead - 1) : -1;
    if (last !== -1) return { buf: buf.subarray(0, last + 1), toEnd };
    if (toEnd) return { buf: Buffer.alloc(0), toEnd };
    want = Math.min(want * 2, size - from);
  }
}
