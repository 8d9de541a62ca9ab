import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { parseBucketLine, type BucketText } from './bucket-text.js';
import { readBuckets } from './tier-file.js';

// The parsed lines of the tier files a query read, kept (docs/rollups.md "Speed"): a file is
// only appended to while the daemon runs, so a file whose identity (device, inode) is the same
// and whose length has not changed answers from memory, and one that grew has only its new
// lines parsed. A file replaced (a rebuild renames new ones in) or cut shorter is read again.
// Files over FILE_LIMIT bytes (a year of 1-minute buckets) are not kept: read as before.

/** The largest tier file kept parsed, and what all of them together may take (bytes of text). */
export const FILE_LIMIT = 32 * 1024 * 1024;
export const TOTAL_LIMIT = 96 * 1024 * 1024;

interface Entry {
  identity: string;
  /** Bytes parsed: up to the end of the last whole line. */
  size: number;
  buckets: BucketText[];
}

/** The parsed tier files of one rollups directory (owned by its Rollups; never shared). */
export class TierCache {
  private readonly entries = new Map<string, Entry>();
  /** Per file: the update under way (queries of one file wait for each other). */
  private readonly busy = new Map<string, Promise<void>>();

  /** The buckets of `file` that overlap [from, to) (ms), in order; none when it does not exist. */
  async read(file: string, from: number, to: number): Promise<BucketText[]> {
    let stat: Stats;
    try {
      stat = await fs.stat(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.entries.delete(file);
        return [];
      }
      throw error;
    }
    if (stat.size > FILE_LIMIT) {
      this.entries.delete(file);
      return readBuckets(file, from, to);
    }
    const entry = await this.entryOf(file, `${stat.dev}:${stat.ino}`, stat.size);
    return overlapping(entry.buckets, from, to);
  }

  /** The entry of `file` brought up to `size` bytes, one query of a file at a time (two at once would parse the same lines twice into it). */
  private async entryOf(file: string, identity: string, size: number): Promise<Entry> {
    const run = (this.busy.get(file) ?? Promise.resolve()).then(() => this.update(file, identity, size));
    const tail = run.then(() => undefined, () => undefined);
    this.busy.set(file, tail);
    try {
      return await run;
    } finally {
      if (this.busy.get(file) === tail) this.busy.delete(file);
    }
  }

  /** Bring the entry of `file` up to `size` bytes (the most recently used last, the oldest dropped past TOTAL_LIMIT). */
  private async update(file: string, identity: string, size: number): Promise<Entry> {
    let entry = this.entries.get(file);
    if (!entry || entry.identity !== identity || entry.size > size) entry = { identity, size: 0, buckets: [] };
    if (entry.size < size) await appendLines(file, entry, size);
    this.entries.delete(file);
    this.entries.set(file, entry);
    let total = 0;
    for (const e of this.entries.values()) total += e.size;
    for (const [name, e] of this.entries) {
      if (total <= TOTAL_LIMIT || e === entry) break;
      total -= e.size;
      this.entries.delete(name);
    }
    return entry;
  }
}

/** Parse the whole lines of `file` from `entry.size` to `size` into the entry. */
async function appendLines(file: string, entry: Entry, size: number): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(size - entry.size);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, entry.size);
    const last = buffer.subarray(0, bytesRead).lastIndexOf(10);
    if (last === -1) return;
    const lines = buffer.subarray(0, last).toString('utf8').split('\n');
    for (const line of lines) {
      const record = parseBucketLine(line);
      // a damaged line is left out (it is written again by the next rebuild)
      if (record) entry.buckets.push(record);
    }
    entry.size += last + 1;
  } finally {
    await handle.close();
  }
}

/** The buckets that overlap [from, to), picked as readBuckets picks them: from the first ending after `from` (by bisection), up to the first starting at or after `to`. */
function overlapping(buckets: readonly BucketText[], from: number, to: number): BucketText[] {
  let lo = 0;
  let hi = buckets.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (buckets[mid]!.e <= from) lo = mid + 1;
    else hi = mid;
  }
  const out: BucketText[] = [];
  for (let i = lo; i < buckets.length; i++) {
    const b = buckets[i]!;
    if (b.s >= to) break;
    if (b.e > from) out.push(b);
  }
  return out;
}
