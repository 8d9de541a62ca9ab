import { canonicalTs, lineHead, type LineHead } from '../ndjson/head.js';
import { GZ, isCompressed, listSiteFilesAsync, plainName, storedAs } from '../ndjson/names.js';
import { MemberCache, RecordedFile } from '../ndjson/reader.js';
import type { StoreHead } from '../storage/store.js';
import { FileIndex, type Block } from './file-index.js';
import { headSeq, type Position } from './position.js';
import { openFailure } from '../ndjson/regular.js';

// Reading the recorded log back: every line after a position and up to the head, in record
// order, that passes a filter. Used by GET /history (a page at a time) and by the stream's
// replay. The files are the source of truth; the indexes only say which bytes to skip.

/** Which lines a read keeps. */
export interface ReadFilter {
  types?: ReadonlySet<string>;
  /** Canonical ts text: from inclusive, to exclusive. */
  from?: string;
  to?: string;
  /** Only the segments of this stream (`site` or a run id). */
  stream?: string;
}

/** One read: after `start`, up to `head`, at most `limit` lines (and about `maxBytes`), each handed to `onLine`. */
export interface ReadRequest {
  head: StoreHead;
  start: Position;
  filter: ReadFilter;
  limit: number;
  /** Stop once the lines kept reach this many bytes (UTF-16 units); the first line is kept whatever its size. */
  maxBytes?: number;
  /** The caller keeps no line past its onLine (nor a part of one): lines may be slices of a larger text (LineSplitter's `sliced`). */
  transient?: boolean;
  /** `segment`: the line's segment number in the head's timeline; `head`: the line's head, as the filter read it. */
  onLine: (line: string, stream: string, seq: number, segment: number, head: LineHead) => void;
}

/** What a read did: how many lines it kept, and the position of the last one (to read on from). */
export interface ReadResult {
  count: number;
  /** The last line kept, or undefined when none was. */
  last: (Position & { stream: string }) | undefined;
  /** Bytes (UTF-16 units) of the lines kept. */
  bytes: number;
  /** True when it stopped at the limit or the byte bound (more may follow); false when it reached the head. */
  full: boolean;
  /** Files the read passed that are damaged (what was readable in them was read), with why. */
  damaged: DamagedFile[];
}

/** A recorded file that could not be read whole. */
export interface DamagedFile {
  file: string;
  reason: string;
}

// Blocks next to each other are read together, up to this many bytes.
const RANGE_BYTES = 1024 * 1024;
// An index is saved once it has grown by this many blocks (~4 MiB of lines).
const SAVE_EVERY_BLOCKS = 64;

/** The reader of a site directory's files, with their indexes cached in memory and on disk. */
export class History {
  private readonly indexDir: string;
  /** Per file: the index, and the identity of the file it describes (a file replaced is indexed again). */
  private readonly indexes = new Map<string, { identity: string; index: Promise<FileIndex> }>();
  private readonly members = new MemberCache();
  private readonly siteDir: string;
  private readonly damage = new Map<string, string>();
  /** Run files retention deleted (plain paths): their absence is no loss to report. */
  private readonly removed = new Set<string>();
  private readonly onDamage: (damaged: DamagedFile) => void;

  /** `onDamage`: told once per file found damaged (the daemon logs it). */
  constructor(siteDir: string, indexDir: string, onDamage: (damaged: DamagedFile) => void = () => {}) {
    this.siteDir = siteDir;
    this.indexDir = indexDir;
    this.onDamage = onDamage;
  }

  /** The files found damaged so far (by queries, replays and the indexing after start-up), with why. */
  damagedFiles(): DamagedFile[] {
    return [...this.damage].map(([file, reason]) => ({ file, reason }));
  }

  /** Retention deleted `file` (plain or `.gz`): it is no longer named missing, now or by a read or an indexing under way. */
  fileRemoved(file: string): void {
    const plain = plainName(file);
    this.removed.add(plain);
    if (this.damage.get(plain)?.startsWith(MISSING)) this.damage.delete(plain);
    if (this.damage.get(plain + GZ)?.startsWith(MISSING)) this.damage.delete(plain + GZ);
  }

  /** Read the lines after `start` up to the head that pass the filter, in record order. */
  async read(req: ReadRequest): Promise<ReadResult> {
    const { head, start, filter, limit, maxBytes = Infinity } = req;
    const segments = head.segments;
    const lastSegment = segments.length - 1;
    const result: ReadResult = { count: 0, last: undefined, bytes: 0, full: false, damaged: [] };
    const full = () => result.count >= limit || result.bytes >= maxBytes;
    for (let i = start.segment; i <= lastSegment && !full(); i++) {
      const segment = segments[i]!;
      if (filter.stream !== undefined && segment.stream !== filter.stream) continue;
      const lower = i === start.segment ? start.seq : segment.after;
      const upper = i === lastSegment ? headSeq(head) : segment.to;
      if (upper <= lower) continue;
      const files = segment.file ? [await runFile(segment.file)] : await this.siteFiles();
      const room = { count: limit - result.count, bytes: maxBytes - result.bytes };
      const named = segment.file !== undefined && segment.removed !== true;
      for (const { line, seq, keys } of await this.readSegment(files, head, lower, upper, filter, room, result.damaged, named, req.transient === true)) {
        result.count++;
        result.bytes += line.length;
        result.last = { segment: i, seq, stream: segment.stream };
        req.onLine(line, segment.stream, seq, i, keys);
      }
    }
    result.full = full();
    return result;
  }

  /**
   * The first lines of seqs (lower, upper] of a segment's files that pass the filter, in seq
   * order, as many as `room` holds. Each file's lines come in seq order (a target only gets
   * higher seqs), but after the clock stepped back over noon an earlier day's file holds
   * seqs above a later one's: the files' lines are merged by seq. Once the page is full, no
   * later seq can enter it, so the other files' blocks beyond it are not read.
   */
  private async readSegment(files: readonly string[], head: StoreHead, lower: number, upper: number, filter: ReadFilter,
    room: { count: number; bytes: number }, damaged: DamagedFile[], named: boolean, sliced: boolean): Promise<Kept[]> {
    let kept: Kept[] = [];
    let bound = upper;
    for (const file of files) {
      const mine: Kept[] = [];
      let bytes = 0;
      const full = () => mine.length >= room.count || bytes >= room.bytes;
      const take = (line: string) => {
        if (full()) return;
        const keys = lineHead(line);
        if (!keys || keys.seq <= lower || keys.seq > bound || !passes(keys, filter)) return;
        mine.push({ line, seq: keys.seq, keys });
        bytes += line.length;
      };
      await this.readFile(file, head, (b) => wanted(b, lower, bound, filter), take, full, damaged, named, sliced);
      if (mine.length === 0) continue;
      kept = pageOf(kept.length === 0 ? mine : mergeBySeq(kept, mine), room);
      const keptBytes = kept.reduce((n, k) => n + k.line.length, 0);
      if (kept.length >= room.count || keptBytes >= room.bytes) bound = kept.at(-1)!.seq;
    }
    return kept;
  }

  /**
   * Read the lines of a file in the blocks its index says can hold what `wanted` asks for;
   * damage is noted. A run file (`named`: the timeline names it, it is not listed) that is not
   * there is noted as missing: it was moved away or deleted, and its events are not served.
   */
  private async readFile(file: string, head: StoreHead, wantedBlock: (b: Block) => boolean,
    take: (line: string) => void, full: () => boolean, damaged: DamagedFile[], named: boolean, sliced = false): Promise<void> {
    const reader = await openStored(file, this.members).catch((error: NodeJS.ErrnoException) => error);
    if (!(reader instanceof RecordedFile)) {
      // (a site day file gone since it was listed is retention's: nothing to say)
      if (named) this.note(missing(file, reader), damaged);
      return;
    }
    // put back (as it was named missing: plain, though it may come back as its .gz)
    for (const named of [file, plainName(file)]) if (unopened(this.damage.get(named))) this.damage.delete(named);
    try {
      const end = this.endOf(file, head) ?? reader.size;
      if (this.endOf(file, head) === undefined) await reader.noteTornTail(); // nothing writes it: a torn last line is named
      if (end === undefined) {
        // compressed as one member by an earlier version: no index, every line is read
        await reader.read(0, Infinity, take, full);
        return;
      }
      const index = await this.indexOf(reader, end);
      const ranges = coalesce(index.blocks.filter((b) => b.offset < end && wantedBlock(b)), end);
      for (const [from, to] of ranges) {
        if (full()) break;
        await reader.read(from, to, take, full, sliced);
      }
    } finally {
      await reader.close();
      this.noteDamage(reader, damaged);
    }
  }

  /** Keep what a reader found damaged: in the answer's list and the daemon's. */
  private noteDamage(reader: RecordedFile, damaged: DamagedFile[]): void {
    for (const reason of new Set(reader.damage)) this.note({ file: reader.file, reason }, damaged);
  }

  /** Note one damaged (or missing) file: in the answer's list, and once in the daemon's (told to `onDamage`). */
  private note(found: DamagedFile, damaged: DamagedFile[]): void {
    const { file, reason } = found;
    if (reason.startsWith(MISSING) && this.removed.has(plainName(file))) return; // retention's (a read begun before it journaled)
    if (!damaged.some((d) => d.file === file && d.reason === reason)) damaged.push({ file, reason });
    if (this.damage.has(file)) return; // the first reason found is the file's in /status, logged once
    this.damage.set(file, reason);
    this.onDamage({ file, reason });
  }

  /** Build or extend the index of every file the head names (after start-up, so the first query is fast). */
  async warm(head: StoreHead, stopped: () => boolean): Promise<void> {
    // the run files of segments that hold events (a suspended run's holds none), not deleted by retention
    const named = head.segments.filter((s) => s.file !== undefined && !s.removed && s.to > s.after);
    const runFiles = await Promise.all([...new Set(named.map((s) => s.file!))].map(runFile));
    for (const file of [...await this.siteFiles(), ...runFiles]) {
      if (stopped()) return;
      const reader = await openStored(file, this.members).catch((error: NodeJS.ErrnoException) => error);
      if (!(reader instanceof RecordedFile)) {
        if (runFiles.includes(file) && file !== head.run?.file && !stopped()) this.note(missing(file, reader), []);
        continue;
      }
      try {
        const end = this.endOf(file, head) ?? reader.size;
        if (this.endOf(file, head) === undefined) await reader.noteTornTail();
        // an older single-member gzip has no index: it is read (and its damage found) by the queries that reach it
        if (end !== undefined) await this.indexOf(reader, end);
      } catch { /* a file that cannot be read now is read (and reported) by the queries */ } finally {
        await reader.close();
        // a daemon stopping meanwhile says nothing more (its log has ended)
        if (!stopped()) this.noteDamage(reader, []);
      }
    }
  }

  /**
   * The site day files, oldest first, each as stored (see listSiteFiles). A file newer than
   * the head holds only seqs after it (filtered out); after the clock stepped back, a
   * later-named file holds earlier seqs, so every file is listed.
   */
  private async siteFiles(): Promise<string[]> {
    return listSiteFilesAsync(this.siteDir);
  }

  /** How far a file being written is written (the head's length), else undefined (the file's own size). */
  private endOf(file: string, head: StoreHead): number | undefined {
    if (file === head.site.file) return head.site.bytes;
    if (head.run && file === head.run.file) return head.run.bytes;
    return undefined;
  }

  /** The index of a file covering at least `end` bytes; one extension at a time per file. */
  private indexOf(reader: RecordedFile, end: number): Promise<FileIndex> {
    const { file, identity } = reader;
    const held = this.indexes.get(file);
    const previous = held?.identity === identity ? held.index : FileIndex.load(file, this.indexDir, reader.size ?? end);
    const next = previous.then(async (index) => {
      if (end > index.covered) {
        await index.extendTo(end, reader);
        await index.save(SAVE_EVERY_BLOCKS).catch(() => undefined);
      }
      return index;
    });
    // a failed extension (the file vanished) leaves the index as it was for the next query
    this.indexes.set(file, { identity, index: next.catch(() => previous) });
    return next;
  }
}

const MISSING = 'missing';
const UNOPENED = 'it cannot be opened';
const NOT_REGULAR = 'not a regular file';

/** How a run file that is not there (or cannot be opened: a directory or FIFO at its path) is reported (as a damaged file: /history, /status, the log). */
function missing(file: string, error: NodeJS.ErrnoException): DamagedFile {
  if (error.code === 'ENOENT') return { file, reason: `${MISSING} (ENOENT): the run file was moved away or deleted; its events are not served` };
  const why = openFailure(error);
  return { file, reason: why.startsWith(NOT_REGULAR) ? `${why}: its events are not served` : `${UNOPENED} (${why}): its events are not served` };
}

/** Whether a reason is that of a file that could not be opened (put back once it opens). */
function unopened(reason: string | undefined): boolean {
  return reason !== undefined && [MISSING, NOT_REGULAR, UNOPENED].some((start) => reason.startsWith(start));
}

/**
 * Open a data file as it is stored at this moment: a compression (or a run start decompressing
 * it back) may have replaced it by its other form since it was named, so a file that is not
 * there is looked for as `.gz` (or plain) before it is called missing.
 */
async function openStored(file: string, members: MemberCache): Promise<RecordedFile> {
  try {
    return await RecordedFile.open(file, members);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return RecordedFile.open(isCompressed(file) ? plainName(file) : file + GZ, members).catch(() => { throw error; });
  }
}

/** A run's file: as written, or its `.gz` once retention compressed it (a stopped run's). */
async function runFile(file: string): Promise<string> {
  return storedAs(file) ?? file;
}

/** A line kept for a page, with its seq and head (read once, by the filter). */
interface Kept {
  line: string;
  seq: number;
  keys: LineHead;
}

/** Whether a line's head passes the filter's types and times (its seq is checked by the caller). */
function passes(keys: { ts: string; type: string }, filter: ReadFilter): boolean {
  if (filter.types && !filter.types.has(keys.type)) return false;
  if (filter.from === undefined && filter.to === undefined) return true;
  const ts = canonicalTs(keys.ts);
  return !((filter.from !== undefined && ts < filter.from) || (filter.to !== undefined && ts >= filter.to));
}

/** Two lists in seq order merged into one (ties: `a` first). */
function mergeBySeq(a: Kept[], b: Kept[]): Kept[] {
  const out: Kept[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i]!.seq <= b[j]!.seq) ? a[i++]! : b[j++]!);
  return out;
}

/** The first lines that fit `room`: at most `count`, and up to `bytes` (the first one always). */
function pageOf(lines: Kept[], room: { count: number; bytes: number }): Kept[] {
  let bytes = 0;
  let n = 0;
  while (n < lines.length && n < room.count && (n === 0 || bytes < room.bytes)) bytes += lines[n++]!.line.length;
  return n === lines.length ? lines : lines.slice(0, n);
}

/** Whether a block can hold a line the read keeps. */
function wanted(b: Block, lower: number, upper: number, filter: ReadFilter): boolean {
  if (b.seqMax <= lower || b.seqMin > upper) return false;
  if (filter.from !== undefined && b.tsMax < filter.from) return false;
  if (filter.to !== undefined && b.tsMin >= filter.to) return false;
  if (filter.types && b.types) return b.types.some((t) => filter.types!.has(t));
  return true;
}

/** Byte ranges [from, to) of the blocks, neighbours merged up to RANGE_BYTES, none past `end`. */
function coalesce(blocks: Block[], end: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (const b of blocks) {
    const last = ranges.at(-1);
    if (last && last[1] === b.offset && b.end - last[0] <= RANGE_BYTES) last[1] = Math.min(b.end, end);
    else ranges.push([b.offset, Math.min(b.end, end)]);
  }
  return ranges;
}
