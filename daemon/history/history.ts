import fs from 'node:fs/promises';
import path from 'node:path';
import { GZ } from '../storage/compressed.js';
import type { StoreHead } from '../storage/store.js';
import { FileIndex, type Block } from './file-index.js';
import { lineKeys } from './line-prefix.js';
import { readGzipLines, readLines } from './line-reader.js';
import { headSeq, type Position } from './position.js';

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

/** One read: after `start`, up to `head`, at most `limit` lines, each handed to `onLine`. */
export interface ReadRequest {
  head: StoreHead;
  start: Position;
  filter: ReadFilter;
  limit: number;
  onLine: (line: string, stream: string, seq: number) => void;
}

/** What a read did: how many lines it kept, and the position of the last one (to read on from). */
export interface ReadResult {
  count: number;
  /** The last line kept, or undefined when none was. */
  last: (Position & { stream: string }) | undefined;
  /** True when it stopped at the limit (more may follow); false when it reached the head. */
  full: boolean;
}

// Blocks next to each other are read together, up to this many bytes.
const RANGE_BYTES = 1024 * 1024;
// An index is saved once it has grown by this many blocks (~4 MiB of lines).
const SAVE_EVERY_BLOCKS = 64;
const SITE_FILE = /^site_\d{8}\.ndjson(?:\.gz)?$/;
// `site_YYYYMMDD.ndjson`
const SITE_NAME_LENGTH = 20;

/** The reader of a site directory's files, with their indexes cached in memory and on disk. */
export class History {
  private readonly siteDir: string;
  private readonly indexDir: string;
  private readonly indexes = new Map<string, Promise<FileIndex>>();

  constructor(siteDir: string, indexDir: string) {
    this.siteDir = siteDir;
    this.indexDir = indexDir;
  }

  /** Read the lines after `start` up to the head that pass the filter, in record order. */
  async read(req: ReadRequest): Promise<ReadResult> {
    const { head, start, filter, limit } = req;
    const segments = head.segments;
    const lastSegment = segments.length - 1;
    const result: ReadResult = { count: 0, last: undefined, full: false };
    for (let i = start.segment; i <= lastSegment && result.count < limit; i++) {
      const segment = segments[i]!;
      if (filter.stream !== undefined && segment.stream !== filter.stream) continue;
      const lower = i === start.segment ? start.seq : segment.after;
      const upper = i === lastSegment ? headSeq(head) : segment.to;
      if (upper <= lower) continue;
      const files = segment.file ? [await runFile(segment.file)] : await this.siteFiles(head);
      const full = () => result.count >= limit;
      const take = (line: string) => {
        if (full()) return;
        const keys = lineKeys(line);
        if (!keys || keys.seq <= lower || keys.seq > upper) return;
        if (filter.types && !filter.types.has(keys.type)) return;
        if ((filter.from !== undefined && keys.ts < filter.from) || (filter.to !== undefined && keys.ts >= filter.to)) return;
        result.count++;
        result.last = { segment: i, seq: keys.seq, stream: segment.stream };
        req.onLine(line, segment.stream, keys.seq);
      };
      for (const file of files) {
        if (full()) break;
        if (file.endsWith(GZ)) await readGzipLines(file, take, full);
        else await this.readIndexed(file, head, (b) => wanted(b, lower, upper, filter), take, full);
      }
    }
    result.full = result.count >= limit;
    return result;
  }

  /** Read the lines of a plain file in the blocks its index says can hold what `wanted` asks for. */
  private async readIndexed(file: string, head: StoreHead, wantedBlock: (b: Block) => boolean,
    take: (line: string) => void, full: () => boolean): Promise<void> {
    const end = await this.endOf(file, head);
    if (end === undefined) return;
    const index = await this.indexOf(file, end);
    const ranges = coalesce(index.blocks.filter((b) => b.offset < end && wantedBlock(b)), end);
    if (ranges.length === 0) return;
    const handle = await fs.open(file, 'r');
    try {
      for (const [from, to] of ranges) {
        if (full()) break;
        await readLines(handle, from, to, take, full);
      }
    } finally {
      await handle.close();
    }
  }

  /** Build or extend the index of every file the head names (after start-up, so the first query is fast). */
  async warm(head: StoreHead, stopped: () => boolean): Promise<void> {
    const runFiles = head.segments.flatMap((s) => (s.file ? [s.file] : []));
    for (const file of [...await this.siteFiles(head), ...new Set(runFiles)]) {
      if (stopped()) return;
      if (file.endsWith(GZ)) continue;
      const end = await this.endOf(file, head);
      if (end !== undefined) await this.indexOf(file, end);
    }
  }

  /**
   * The site day files written up to the head, oldest first (a newer one holds only later
   * seqs); a day compressed by retention is its `.gz` (the plain file while both are there).
   */
  private async siteFiles(head: StoreHead): Promise<string[]> {
    if (!head.site.file) return [];
    const newest = path.basename(head.site.file).slice(0, SITE_NAME_LENGTH);
    const days = new Map<string, string>();
    for (const name of await fs.readdir(this.siteDir).catch(() => [] as string[])) {
      const day = name.slice(0, SITE_NAME_LENGTH);
      if (!SITE_FILE.test(name) || day > newest || (days.has(day) && name.endsWith(GZ))) continue;
      days.set(day, name);
    }
    return [...days.keys()].sort().map((day) => path.join(this.siteDir, days.get(day)!));
  }

  /** How far a file is written: the head's length for a file being written, else its size (undefined when gone). */
  private async endOf(file: string, head: StoreHead): Promise<number | undefined> {
    if (file === head.site.file) return head.site.bytes;
    if (head.run && file === head.run.file) return head.run.bytes;
    return fs.stat(file).then((s) => s.size, () => undefined);
  }

  /** The index of a file covering at least `end` bytes; one extension at a time per file. */
  private indexOf(file: string, end: number): Promise<FileIndex> {
    const previous = this.indexes.get(file) ?? FileIndex.load(file, this.indexDir);
    const next = previous.then(async (index) => {
      if (end > index.covered) {
        await index.extendTo(end);
        await index.save(SAVE_EVERY_BLOCKS).catch(() => undefined);
      }
      return index;
    });
    // a failed extension (the file vanished) leaves the index as it was for the next query
    this.indexes.set(file, next.catch(() => previous));
    return next;
  }
}

/** A run's file: as written, or its `.gz` once retention compressed it (a stopped run's). */
async function runFile(file: string): Promise<string> {
  return fs.stat(file).then(() => file, async () => (await fs.stat(file + GZ).then(() => true, () => false)) ? file + GZ : file);
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
