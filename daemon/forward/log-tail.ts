import fs from 'node:fs';
import path from 'node:path';
import { lineHead } from '../ndjson/head.js';
import type { HeldFile } from '../ndjson/held.js';
import { GZ, listSiteFiles, plainName } from '../ndjson/names.js';
import { readTail, type Tail } from '../ndjson/tail.js';
import type { ForwardRecord } from './record.js';

// The log tail: reads the envelopes recorded after a position, straight from the NDJSON
// files (the site day files in name order, or one run's file), plain or compressed, through
// the one reader of daemon/ndjson/. The files are the backlog:
// nothing is kept in memory between reads. The directory is listed only to move on from a
// day file read to its end that is not the store's newest, or past a file that is gone.

/** Where a stream has been read up to: the file (its plain path), the byte offset after the last line taken, its seq. */
export interface StreamPosition {
  file: string;
  offset: number;
  seq: number;
  /**
   * Pass over lines of seq up to `seq` (not only bytes up to `offset`): set once the site
   * stream followed the store back to an earlier day file (the clock stepped back), where
   * older lines precede the new ones, and kept while it goes on from there.
   */
  bySeq?: boolean;
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
  /** What was found damaged, one sentence each. */
  damage: string[];
  /** Bytes after the last whole line, at the end of the file. */
  leftover: number;
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

  /** The end of the newest site file on disk (after `seq`): a sink starting at the end while the store has no site file open. */
  siteEnd(seq: number): StreamPosition {
    const file = this.siteFiles().at(-1);
    if (file === undefined) return { file: '', offset: 0, seq };
    try {
      return { file, offset: fs.statSync(file).size, seq };
    } catch {
      // compressed: past its end, so the tail reads it again from its start passing over the seqs up to `seq`
      return { file, offset: Number.MAX_SAFE_INTEGER, seq };
    }
  }

  /**
   * Read the records after `pos` of a stream (`site` walks on through later day files; the
   * store's newest site file is `siteHead`, '' before the first). Records of a run stream
   * with a seq up to the position's are passed over (a run starts after `seq` in its file).
   * `held`: the reader's file kept open between its reads (one per sink).
   */
  async read(stream: string, pos: StreamPosition, limits: TailLimits, siteHead: string, held?: HeldFile): Promise<TailRead> {
    const gaps: string[] = [];
    let at = pos;
    for (;;) {
      if (stream === 'site' && at.file === '') {
        const first = this.siteFiles()[0];
        if (first === undefined) return { records: [], position: at, atEnd: true, gaps };
        at = { file: first, offset: 0, seq: at.seq };
      }
      const got = await this.readFile(stream, at, limits, held);
      gaps.push(...got.damage);
      if (got.skipped > 0) gaps.push(`${got.skipped} line(s) of ${at.file} that are no envelopes were passed over (after ${stream}:${at.seq})`);
      if (got.missing) {
        // the store's newest site file not written yet is nothing passed over
        if (stream === 'site' && at.file === siteHead) return { records: [], position: at, atEnd: true, gaps };
        gaps.push(`${at.file} is gone: the ${stream === 'site' ? 'site events' : `events of run ${stream}`} after ${stream}:${at.seq} in it were not forwarded`);
        const next = stream === 'site' ? this.nextSiteFile(at.file) : undefined;
        if (next === undefined) return { records: [], position: at, atEnd: true, gaps };
        at = { file: next, offset: 0, seq: at.seq };
        continue;
      }
      if (got.records.length > 0) return { ...got, gaps };
      if (!got.atEnd) {
        at = got.position; // a slice of lines passed over: read on
        continue;
      }
      // the clock stepped back: the store writes an earlier day file now; follow it there
      const back = stream === 'site' && siteHead !== '' && path.basename(siteHead) < path.basename(at.file);
      const next = back ? siteHead : stream === 'site' && at.file !== siteHead ? this.nextSiteFile(at.file) : undefined;
      if (next === undefined) return { ...got, gaps };
      // a day that is over and ends without a newline: those bytes are no line, and never will be
      if (got.leftover > 0 && !back) gaps.push(`${at.file} ends in ${got.leftover} byte(s) that are no whole line (after ${stream}:${got.position.seq}): passed over`);
      at = { file: next, offset: 0, seq: got.position.seq, ...(back || at.bySeq ? { bySeq: true } : {}) };
    }
  }

  private async readFile(stream: string, at: StreamPosition, limits: TailLimits, held: HeldFile | undefined): Promise<FileRead> {
    const bytes = Math.min(limits.bytes, Math.max(64 * 1024, Math.ceil(limits.records * this.lineBytes * 1.25)));
    const got = await readLines(stream, at, { records: limits.records, bytes }, held);
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

async function readLines(stream: string, pos: StreamPosition, limits: TailLimits, held: HeldFile | undefined): Promise<FileRead> {
  const stored = await readStored(pos, limits, held);
  if (stored === undefined) return { records: [], position: pos, atEnd: true, skipped: 0, missing: true, damage: [], leftover: 0 };
  const { tail, file, from } = stored;
  // a file shorter than the position was replaced: read it again, passing over seqs already taken
  const bySeq = pos.bySeq === true || from !== pos.offset || stream !== 'site';
  const records: ForwardRecord[] = [];
  let skipped = 0;
  let seq = pos.seq;
  for (const { line, end } of tail.lines) {
    const head = lineHead(line);
    if (!head) { if (line.trim() !== '') skipped++; continue; }
    if (bySeq && head.seq <= pos.seq) continue;
    records.push({ stream, seq: head.seq, ts: head.ts, type: head.type, line, file: pos.file, end, ...(pos.bySeq ? { bySeq: true as const } : {}) });
    seq = head.seq;
  }
  const damage = tail.damage.map((d) => `${file} is damaged (${d}): the ${stream === 'site' ? 'site events' : `events of run ${stream}`} in it there were not forwarded`);
  const leftover = tail.atEnd && tail.size !== undefined ? tail.size - tail.end : 0;
  const position = { file: pos.file, offset: tail.end, seq, ...(pos.bySeq ? { bySeq: true } : {}) };
  return { records, position, atEnd: tail.atEnd, skipped, missing: false, damage, leftover };
}

// The tail of a file after a position, from the file as it is stored now (plain, or its `.gz`
// once compressed); undefined when neither is there.
async function readStored(pos: StreamPosition, limits: TailLimits, held: HeldFile | undefined): Promise<{ tail: Tail; file: string; from: number } | undefined> {
  for (const file of [pos.file, pos.file + GZ]) {
    try {
      const lines = { lines: limits.records, bytes: limits.bytes };
      let tail = await readTail(file, pos.offset, lines, undefined, held);
      if (tail.size === undefined || tail.size >= pos.offset) return { tail, file, from: pos.offset };
      tail = await readTail(file, 0, lines, undefined, held);
      return { tail, file, from: 0 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return undefined;
}
