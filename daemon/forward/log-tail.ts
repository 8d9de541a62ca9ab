import fs from 'node:fs';
import path from 'node:path';
import { lineHead } from '../ndjson/head.js';
import type { HeldFile } from '../ndjson/held.js';
import { brokenBeside, GZ, listSiteFiles, plainName } from '../ndjson/names.js';
import { readTail, type Tail } from '../ndjson/tail.js';
import type { ForwardRecord } from './record.js';
import type { SiteSegments } from './site-segments.js';

// The log tail: reads the envelopes recorded after a position, straight from the NDJSON
// files (the site day files in name order, or one run's file), plain or compressed, through
// the one reader of daemon/ndjson/. The files are the backlog:
// nothing is kept in memory between reads. The directory is listed only to move on from a
// day file read to its end that is not the store's newest, or past a file that is gone.

/**
 * Where a stream has been read up to: the file (its plain path), the byte offset after the
 * last line taken, and the highest seq taken (after the clock stepped back, a day read by
 * offset may hold lines newer than the next day's: the next day's are then taken below it).
 */
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
  /**
   * Read in seq order by the site segments of the daemon that started at this seq (the first
   * it recorded): all site seqs up to `seq` are delivered. A position of an earlier daemon's
   * life (another number) reads the days in name order until their end, then by segment.
   */
  segments?: number;
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
  /** A line of a later segment ended the read (the position is just before it). */
  bounded: boolean;
}

/** Reads envelopes after a position from the site files or a run file. */
export class LogTail {
  private readonly siteDir: string;
  // average bytes per line seen so far: a read asks for about as many bytes as a batch needs
  private lineBytes = 512;

  private readonly segments: SiteSegments | undefined;

  /** `segments`: where the site events recorded since start went (read in seq order); without, the days are read in name order. */
  constructor(siteDir: string, segments?: SiteSegments) {
    this.siteDir = siteDir;
    this.segments = segments;
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
    // site seqs from `bound` on were recorded since start: read by segment (site-segments.ts)
    const bound = stream === 'site' ? this.segments?.start : undefined;
    let at = pos;
    for (;;) {
      if (bound !== undefined && at.segments === bound) return this.readSegments(at, limits, held, gaps);
      if (stream === 'site' && at.file === '') {
        const first = this.siteFiles()[0];
        if (first === undefined) return { records: [], position: at, atEnd: true, gaps };
        at = { file: first, offset: 0, seq: at.seq };
      }
      const got = await this.readFile(stream, at, limits, held, bound);
      this.noteGaps(stream, at, got, gaps);
      if (got.missing) {
        // the store's newest site file not written yet is nothing passed over
        if (stream === 'site' && at.file === siteHead) return { records: [], position: at, atEnd: true, gaps };
        const next = stream === 'site' ? this.nextSiteFile(at.file) : undefined;
        // a file moved away after the sink delivered all of it held nothing left to pass over
        if (stream !== 'site' || !(await this.deliveredBefore(at.seq, next))) {
          gaps.push(`${at.file} is gone: the ${stream === 'site' ? 'site events' : `events of run ${stream}`} after ${stream}:${at.seq} in it were not forwarded`);
        }
        if (next === undefined) return { records: [], position: at, atEnd: true, gaps };
        at = { file: next, offset: 0, seq: at.seq };
        continue;
      }
      if (got.records.length > 0) return { ...got, gaps };
      if (!got.atEnd && !got.bounded) {
        at = got.position; // a slice of lines passed over: read on
        continue;
      }
      const { next, back } = stream !== 'site' ? { next: undefined, back: false }
        : bound !== undefined ? { next: this.nextSiteFile(at.file), back: false } : this.afterSiteFile(at, siteHead);
      // the days before start are read: what follows was recorded since
      if (next === undefined && bound !== undefined) return this.readSegments({ ...got.position, seq: Math.max(got.position.seq, bound - 1), segments: bound }, limits, held, gaps);
      if (next === undefined) return { ...got, gaps };
      // a day that is over and ends without a newline: those bytes are no line, and never will be
      if (got.leftover > 0 && !back) gaps.push(`${at.file} ends in ${got.leftover} byte(s) that are no whole line (after ${stream}:${got.position.seq}): passed over`);
      at = { file: next, offset: 0, seq: got.position.seq, ...(back || at.bySeq ? { bySeq: true } : {}) };
    }
  }

  /**
   * Read the site events recorded since start in seq order, segment by segment: in each
   * segment's day file the lines up to the position's seq are passed over and a line of the
   * next segment ends the read; a segment read to its end (or its next one's first seq) is done.
   */
  private async readSegments(pos: StreamPosition, limits: TailLimits, held: HeldFile | undefined, gaps: string[]): Promise<TailRead> {
    let at = pos;
    for (;;) {
      const segment = this.segments!.after(at.seq)!;
      if (at.file !== segment.file) at = { file: segment.file, offset: 0, seq: at.seq, bySeq: true, segments: at.segments! };
      const got = await this.readFile('site', at, limits, held, segment.until);
      this.noteGaps('site', at, got, gaps);
      if (got.records.length > 0) return { ...got, gaps };
      if (!got.missing && !got.atEnd && !got.bounded) {
        at = got.position;
        continue;
      }
      // the segment the store writes now: its end is the end for now
      if (segment.until === undefined) return { records: [], position: got.missing ? at : got.position, atEnd: true, gaps };
      if (got.missing) gaps.push(`${at.file} is gone: the site events after site:${at.seq} in it were not forwarded`);
      at = { ...(got.missing ? at : got.position), seq: Math.max(at.seq, got.position.seq, segment.until - 1) };
    }
  }

  /**
   * Whether a site day file that is gone held no event after `seq`: the next seq recorded is
   * `seq + 1`, by the first line of the next day file on disk (`next`) or by the seqs the
   * store recorded since start (every one after `segments.before`).
   */
  private async deliveredBefore(seq: number, next: string | undefined): Promise<boolean> {
    let following = this.segments ? this.segments.before + 1 : Infinity;
    if (next !== undefined) {
      const stored = await readStored({ file: next, offset: 0, seq: 0 }, { records: 1, bytes: 64 * 1024 }, undefined);
      const head = stored?.tail.lines[0] ? lineHead(stored.tail.lines[0].line) : undefined;
      if (head) following = Math.min(following, head.seq);
    }
    return following <= seq + 1;
  }

  private noteGaps(stream: string, at: StreamPosition, got: FileRead, gaps: string[]): void {
    gaps.push(...got.damage);
    if (got.skipped > 0) gaps.push(`${got.skipped} line(s) of ${at.file} that are no envelopes were passed over (after ${stream}:${at.seq})`);
  }

  private async readFile(stream: string, at: StreamPosition, limits: TailLimits, held: HeldFile | undefined, bound?: number): Promise<FileRead> {
    const bytes = Math.min(limits.bytes, Math.max(64 * 1024, Math.ceil(limits.records * this.lineBytes * 1.25)));
    const got = await readLines(stream, at, { records: limits.records, bytes }, held, bound);
    if (got.records.length > 0) this.lineBytes = Math.max(64, (got.position.offset - at.offset) / got.records.length);
    return got;
  }

  /**
   * Where the site stream goes on from the end of `at.file`: the next day file by name, and
   * only from the end of the newest one back to the earlier file the store writes after the
   * clock stepped back (`back`; from then on lines are passed over by seq): every later day
   * is read before, so the seqs passed over were all delivered. Once back (`bySeq`), the end
   * of the store's file is the end: the later days were read before the jump, and a line is
   * written to them again only once the clock is forward, which makes one of them the store's.
   */
  private afterSiteFile(at: StreamPosition, siteHead: string): { next: string | undefined; back: boolean } {
    if (at.bySeq && at.file === siteHead) return { next: undefined, back: false };
    const later = this.nextSiteFile(at.file);
    if (later !== undefined) return { next: later, back: false };
    const back = siteHead !== '' && path.basename(siteHead) < path.basename(at.file);
    return { next: back ? siteHead : undefined, back };
  }

  private siteFiles(): string[] {
    return listSiteFiles(this.siteDir).map(plainName);
  }

  // The first site day file after `file` (by plain name), or undefined.
  private nextSiteFile(file: string): string | undefined {
    return this.siteFiles().find((f) => path.basename(f) > path.basename(file));
  }
}

// `bound`: a line of this seq or a later one ends the read before it (it belongs to a later segment)
async function readLines(stream: string, pos: StreamPosition, limits: TailLimits, held: HeldFile | undefined, bound?: number): Promise<FileRead> {
  const stored = await readStored(pos, limits, held);
  if (stored === undefined) return { records: [], position: pos, atEnd: true, skipped: 0, missing: true, damage: [], leftover: 0, bounded: false };
  const { tail, file, from } = stored;
  // a file shorter than the position was replaced: read it again, passing over seqs already taken
  const bySeq = pos.bySeq === true || from !== pos.offset || stream !== 'site';
  const records: ForwardRecord[] = [];
  let skipped = 0;
  let seq = pos.seq;
  let last = from;
  let bounded = false;
  for (const { line, end } of tail.lines) {
    const head = lineHead(line);
    if (head && bound !== undefined && head.seq >= bound) {
      bounded = true;
      break;
    }
    last = end;
    if (!head) { if (line.trim() !== '') skipped++; continue; }
    if (bySeq && head.seq <= pos.seq) continue;
    records.push({ stream, seq: head.seq, ts: head.ts, type: head.type, line, file: pos.file, end, ...flags(pos) });
    // the highest seq taken: a day read by offset may hold lines newer than the next day's (the clock stepped back)
    seq = Math.max(seq, head.seq);
  }
  const damage = tail.damage.map((d) => `${file} is damaged (${d}): the ${stream === 'site' ? 'site events' : `events of run ${stream}`} in it there were not forwarded`);
  // a site file replaced by a shorter one (moved away, a new one of the same day written): the
  // seqs between the position and the new file's first were in the file that is gone
  if (stream === 'site' && from !== pos.offset && records.length > 0 && records[0]!.seq > pos.seq + 1) {
    damage.push(`${pos.file} is gone: the site events after site:${pos.seq} in it were not forwarded`);
  }
  const leftover = tail.atEnd && tail.size !== undefined ? tail.size - tail.end : 0;
  const position = { file: pos.file, offset: bounded ? last : tail.end, seq, ...flags(pos) };
  return { records, position, atEnd: tail.atEnd && !bounded, skipped, missing: false, damage, leftover: bounded ? 0 : leftover, bounded };
}

/** How a position reads on, carried by its records to the position after them. */
export function flags(pos: { bySeq?: boolean; segments?: number }): { bySeq?: true; segments?: number } {
  return { ...(pos.bySeq ? { bySeq: true as const } : {}), ...(pos.segments !== undefined ? { segments: pos.segments } : {}) };
}

// The tail of a file after a position, from the file as it is stored now (plain, or its `.gz`
// once compressed); undefined when neither is there.
async function readStored(pos: StreamPosition, limits: TailLimits, held: HeldFile | undefined): Promise<{ tail: Tail; file: string; from: number } | undefined> {
  // a plain file broken beside its .gz (brokenBeside: 0 bytes, a looping link) is not read: the .gz is
  const plain = plainName(pos.file);
  for (const file of brokenBeside(plain) !== undefined ? [plain + GZ] : [pos.file, pos.file + GZ]) {
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
