import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { parseBucketLine, type BucketText } from './bucket-text.js';
import type { TierName } from './tiers.js';

// A tier file: one type's closed buckets of one tier, one JSON line each, in start order
// (`<rollups>/<tier>/<type>.ndjson`). A query reads only the lines of its span: the start is
// found by bisecting the file's bytes, then lines are read up to the span's end.

const PREFIX = /^\{"s":(-?\d+),"e":(-?\d+),/;
const CHUNK = 64 * 1024;

/** The file of `type`'s buckets in `tier`, relative to the rollups directory (a long type name: its hash). */
export function tierFile(tier: TierName, type: string): string {
  const encoded = encodeURIComponent(type);
  const name = encoded.length <= 160 ? encoded : `~${createHash('sha256').update(type).digest('hex')}`;
  return path.join(tier, `${name}.ndjson`);
}

/** The buckets of a tier file that overlap [from, to) (ms), in order; none when it does not exist. */
export async function readBuckets(file: string, from: number, to: number): Promise<BucketText[]> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    const start = await bisect(handle, size, from);
    return await readFrom(handle, start, size, from, to);
  } finally {
    await handle.close();
  }
}

/** A byte offset at or before the first line whose bucket ends after `from`. */
async function bisect(handle: fs.FileHandle, size: number, from: number): Promise<number> {
  let lo = 0;
  let hi = size;
  while (hi - lo > CHUNK) {
    const mid = Math.floor((lo + hi) / 2);
    const end = await endOfLineAfter(handle, mid);
    if (end === undefined || end > from) hi = mid;
    else lo = mid;
  }
  return lo;
}

/** The bucket end of the first whole line starting after byte `at`, undefined when none is readable. */
async function endOfLineAfter(handle: fs.FileHandle, at: number): Promise<number | undefined> {
  const buffer = Buffer.alloc(CHUNK);
  const { bytesRead } = await handle.read(buffer, 0, CHUNK, at);
  const text = buffer.subarray(0, bytesRead).toString('latin1');
  const nl = text.indexOf('\n');
  if (nl === -1) return undefined;
  const match = PREFIX.exec(text.slice(nl + 1, nl + 64));
  return match ? Number(match[2]) : undefined;
}

async function readFrom(handle: fs.FileHandle, start: number, size: number, from: number, to: number): Promise<BucketText[]> {
  const records: BucketText[] = [];
  let carry = '';
  const decoder = new StringDecoder('utf8');
  let first = start > 0;
  for (let at = start; at < size;) {
    const length = Math.min(1024 * 1024, size - at);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, at);
    if (bytesRead === 0) break;
    at += bytesRead;
    const lines = (carry + decoder.write(buffer.subarray(0, bytesRead))).split('\n');
    carry = lines.pop()!;
    for (const line of lines) {
      if (first) { first = false; continue; }
      const match = PREFIX.exec(line);
      if (!match) continue;
      if (Number(match[1]) >= to) return records;
      if (Number(match[2]) <= from) continue;
      const record = parseBucketLine(line);
      // a damaged line is left out (it is written again by the next rebuild)
      if (record) records.push(record);
    }
  }
  return records;
}

