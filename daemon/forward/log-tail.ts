import fs from 'node:fs/promises';
import path from 'node:path';
import { listSiteFiles, plainName } from '../ndjson/names.js';
import { envelopeHead, type ForwardRecord } from './record.js';

// The log tail: reads the envelopes recorded after a position, straight from the NDJSON
// files (the site day files in name order, or one run's file). The files are the backlog:
// nothing is kept in memory between reads. The directory is listed only to move on from a
// day file read to its end that is not the store's newest, or past a file that is gone.

/** Where a stream has been read up to: the file (its plain path), the byte offset after the last line taken, its seq. */
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
  /** The position after the records returned (past what was passed over, too). */
  position: StreamPosition;
  /** True when the read reached the end of what is on disk now. */
  atEnd: boolean;
  /** What could not be read and was passed over, one sentence each (a file gone, lines that are no envelopes). */
  gaps: string[];
}

interface FileRead {
  records: ForwardRecord[];
  position: StreamPosition;
  atEnd: boolean;
  /** Lines that were no envelopes. */
  skipped: number;
  /** The file is not there. */
  missing: boolean;
}

/** Reads envelopes after a position from the site files or a run file. */
export class LogTail {
  private readonly siteDir: string;
  // average bytes per line seen so far: a read asks for about as many bytes as a batch needs
  private lineBytes = 512;

  constructor(siteDir: string) {
    this.siteDir = siteDir;
  }

  /** Where the site stream starts when no cursor exists: the oldest site file. */
  siteStart(): StreamPosition {
    return { file: this.siteFiles()[0] ?? '', offset: 0, seq: 0 };
  }

  /**
   * Read the records after `pos` of a stream (`site` walks on through later day files; the
   * store's newest site file is `siteHead`, '' before the first). Records of a run stream
   * with a seq up to the position's are passed over (a run starts after `seq` in its file).
   */
  async read(stream: string, pos: StreamPosition, limits: TailLimits, siteHead: string): Promise<TailRead> {
    const gaps: string[] = [];
    let at = pos;
    for (;;) {
      if (stream === 'site' && at.file === '') {
        const first = this.siteFiles()[0];
        if (first === undefined) return { records: [], position: at, atEnd: true, gaps };
        at = { file: first, offset: 0, seq: at.seq };
      }
      const got = await this.readFile(stream, at, limits);
      if (got.skipped > 0) gaps.push(`${got.skipped} line(s) of ${at.file} that are no envelopes were passed over (after ${stream}:${at.seq})`);
      if (got.missing) {
        const next = stream === 'site' && at.file !== siteHead ? this.nextSiteFile(at.file) : undefined;
        if (next === undefined && stream === 'site') return { records: [], position: at, atEnd: true, gaps };
        gaps.push(`${at.file} is gone: the ${stream === 'site' ? 'site events' : `events of run ${stream}`} after ${stream}:${at.seq} in it were not forwarded`);
        if (next === undefined) return { records: [], position: at, atEnd: true, gaps };
        at = { file: next, offset: 0, seq: at.seq };
        continue;
      }
      if (got.records.length > 0) return { ...got, gaps };
      if (!got.atEnd) {
        at = got.position; // a slice of lines passed over: read on
        continue;
      }
      const next = stream === 'site' && at.file !== siteHead ? this.nextSiteFile(at.file) : undefined;
      if (next === undefined) return { ...got, gaps };
      at = { file: next, offset: 0, seq: got.position.seq };
    }
  }

  private async readFile(stream: string, at: StreamPosition, limits: TailLimits): Promise<FileRead> {
    const bytes = Math.min(limits.bytes, Math.max(64 * 1024, Math.ceil(limits.records * this.lineBytes * 1.25)));
    const got = await readLines(stream, at, { records: limits.records, bytes });
    if (got.records.length > 0) this.lineBytes = Math.max(64, (got.position.offset - at.offset) / got.records.length);
    return got;
  }

  private siteFiles(): string[] {
    return listSiteFiles(this.siteDir).map(plainName);
  }

  // The first site day file after `file` (by plain name), or undefined.
  private nextSiteFile(file: string): string | undefined {
    return this.siteFiles().find((f) => path.basename(f) > path.basename(file));
  }
}

async function readLines(stream: string, pos: StreamPosition, limits: TailLimits): Promise<FileRead> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(pos.file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], position: pos, atEnd: true, skipped: 0, missing: true };
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    // a file shorter than the position was replaced: read it again, passing over seqs already taken
    const restart = size < pos.offset;
    const bySeq = restart || stream !== 'site';
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
      if (bySeq && head.seq <= pos.seq) continue;
      records.push({ stream, seq: head.seq, ts: head.ts, type: head.type, line, file: pos.file, end: from + start });
      seq = head.seq;
    }
    const offset = from + start;
    return { records, position: { file: pos.file, offset, seq }, atEnd: toEnd && start >= buf.length, skipped, missing: false };
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
