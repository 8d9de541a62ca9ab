import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { canonicalTs, lineHead } from '../ndjson/head.js';
import type { RecordedFile } from '../ndjson/reader.js';
import { openRegular } from '../ndjson/regular.js';

// A sparse index of one NDJSON file: per block of ~64 KiB of whole lines, its byte range (in
// plain bytes: a compressed file is indexed as what it decompresses to) and
// the range of seq and ts and (when few) the types in it. A query reads only the blocks that
// can hold what it asks for. ts need not grow through a file (callers may send their own),
// so blocks keep a min and a max rather than relying on order. Kept in memory and saved under
// `.meridian/index/` (a cache: checked against the file's length and first bytes when loaded,
// rebuilt when it does not match).

/** One block of whole lines: [offset, end) and what it holds. */
export interface Block {
  offset: number;
  end: number;
  seqMin: number;
  seqMax: number;
  /** Canonical ts text; '' sorts first (a line whose ts is unreadable). */
  tsMin: string;
  tsMax: string;
  /** The types in the block, or null when there are more than MAX_TYPES (any type may be there). */
  types: string[] | null;
}

const BLOCK_BYTES = 64 * 1024;
const MAX_TYPES = 32;
const HEAD_BYTES = 4096;
const FORMAT = 2;

/** A block as saved: [offset, end, seqMin, seqMax, tsMin, tsMax, indexes into `types` or null]. */
type SavedBlock = [number, number, number, number, string, string, number[] | null];

/** The saved index: compact (a type is named once per file), as its JSON is read at every start. */
interface Saved {
  format: number;
  file: string;
  head: string;
  covered: number;
  types: string[];
  blocks: SavedBlock[];
}

/** The index of one file: blocks covering its bytes [0, covered). */
export class FileIndex {
  readonly file: string;
  blocks: Block[] = [];
  covered = 0;
  private head = '';
  private savedBlocks = 0;
  /** One string per type name: thousands of blocks name the same few types. */
  private readonly names = new Map<string, string>();
  private readonly savePath: string;

  private constructor(file: string, indexDir: string) {
    this.file = file;
    this.savePath = path.join(indexDir, `${createHash('sha1').update(file).digest('hex').slice(0, 20)}.json`);
  }

  /** The saved index of `file` (of `size` plain bytes) when it still matches the file, else an empty one. */
  static async load(file: string, indexDir: string, size: number): Promise<FileIndex> {
    const index = new FileIndex(file, indexDir);
    try {
      const saved = JSON.parse(await fs.readFile(index.savePath, 'utf8')) as Saved;
      if (saved.format === FORMAT && saved.file === file && Array.isArray(saved.blocks) && saved.covered <= size
        && await headOf(file, saved.covered) === saved.head) {
        const names = saved.types.map((t) => index.intern(t));
        const blocks = saved.blocks.map(([offset, end, seqMin, seqMax, tsMin, tsMax, types]): Block =>
          ({ offset, end, seqMin, seqMax, tsMin, tsMax, types: types && types.map((i) => names[i]!) }));
        Object.assign(index, { blocks, covered: saved.covered, head: saved.head, savedBlocks: blocks.length });
      }
    } catch { /* none yet, or unreadable: built from the file */ }
    return index;
  }

  /**
   * Index the whole lines of [covered, bytes). The last block, when short, is read again so
   * that blocks stay ~64 KiB however often the file is extended. (A file that shrank, a torn
   * tail cut at start-up, is caught when a saved index is loaded.)
   */
  async extendTo(bytes: number, reader: RecordedFile): Promise<void> {
    if (bytes <= this.covered) return;
    const last = this.blocks.at(-1);
    if (last && last.end - last.offset < BLOCK_BYTES) {
      this.blocks.pop();
      this.covered = last.offset;
    }
    let block: Block | undefined;
    const end = await reader.read(this.covered, bytes, (line, start, lineEnd) => {
      const head = lineHead(line);
      block ??= { offset: start, end: start, seqMin: Infinity, seqMax: -Infinity, tsMin: '\uffff', tsMax: '', types: [] };
      block.end = lineEnd;
      if (head) widen(block, head.seq, canonicalTs(head.ts), this.intern(head.type));
      if (lineEnd - block.offset >= BLOCK_BYTES) {
        this.blocks.push(sealed(block));
        block = undefined;
      }
    });
    if (block) this.blocks.push(sealed(block));
    this.covered = Math.max(this.covered, end);
    if (!this.head.startsWith(`${HEAD_BYTES}:`)) this.head = await headOf(this.file, this.covered);
  }

  private intern(type: string): string {
    const known = this.names.get(type);
    if (known !== undefined) return known;
    const own = detached(type);
    this.names.set(own, own);
    return own;
  }

  /** Save the index when it grew by `minBlocks` blocks since it was last saved (a cache: not synced). */
  async save(minBlocks: number): Promise<void> {
    if (this.blocks.length - this.savedBlocks < minBlocks) return;
    const names = [...this.names.keys()];
    const at = new Map(names.map((name, i) => [name, i]));
    const blocks = this.blocks.map((b): SavedBlock => [b.offset, b.end, b.seqMin, b.seqMax, b.tsMin, b.tsMax, b.types && b.types.map((t) => at.get(t)!)]);
    const saved: Saved = { format: FORMAT, file: this.file, head: this.head, covered: this.covered, types: names, blocks };
    await fs.mkdir(path.dirname(this.savePath), { recursive: true });
    const tmp = `${this.savePath}.tmp`;
    await fs.writeFile(tmp, JSON.stringify(saved));
    await fs.rename(tmp, this.savePath);
    this.savedBlocks = this.blocks.length;
  }
}

/**
 * A finished block: its ts bounds copied out of the lines they were cut from (a cut string
 * keeps its whole line alive), and a block of no envelope at all given a seq range no query
 * matches (and no Infinity, which JSON cannot hold).
 */
function sealed(block: Block): Block {
  if (block.seqMin === Infinity) return Object.assign(block, { seqMin: 0, seqMax: -1, tsMin: '', tsMax: '' });
  return Object.assign(block, { tsMin: detached(block.tsMin), tsMax: detached(block.tsMax) });
}

/** A copy of `text` that shares no memory with the string it was cut from. */
function detached(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

function widen(block: Block, seq: number, ts: string, type: string): void {
  if (seq < block.seqMin) block.seqMin = seq;
  if (seq > block.seqMax) block.seqMax = seq;
  if (ts < block.tsMin) block.tsMin = ts;
  if (ts > block.tsMax) block.tsMax = ts;
  if (block.types && !block.types.includes(type)) {
    block.types.push(type);
    if (block.types.length > MAX_TYPES) block.types = null;
  }
}

/** A hash of the first bytes of a file (up to `covered`), to tell whether a saved index still describes it. */
async function headOf(file: string, covered: number): Promise<string> {
  const handle = await openRegular(file);
  try {
    const buf = Buffer.alloc(Math.min(HEAD_BYTES, covered));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return `${buf.length}:${createHash('sha1').update(buf.subarray(0, bytesRead)).digest('hex')}`;
  } finally {
    await handle.close();
  }
}
