import fs from 'node:fs';
import path from 'node:path';
import { SystemZone } from 'luxon';
import { writeJsonAtomic } from '../storage/state-files.js';
import type { RollupEngine, TypeState } from './engine.js';
import { bucketLine } from './bucket-text.js';
import { TIERS } from './tiers.js';

// The rollups directory on disk (`<site_dir>/.meridian/rollups/`, docs/rollups.md): tier files
// appended at each flush, then the checkpoint (written whole, atomically) that names how far
// each tier file is and the cursor of the last event folded. After a crash, the tier files are
// cut back to the checkpoint's lengths and the events after its cursor are folded again.

/** The checkpoint file's content. */
export interface Checkpoint {
  version: 1;
  /** The zone the night buckets were cut in (`system` named as the system's zone; absent in checkpoints written before it was kept). */
  zone?: string;
  /** The cursor of the last event folded (`site:0`: none). */
  cursor: string;
  /** Each tier file's length in bytes (relative path -> bytes). */
  files: Record<string, number>;
  /** Readings left out as late (docs/rollups.md). */
  late: number;
  /** Per type: readings with a top-level member not taken as named (engine.ts `omitted`; absent in checkpoints written before it was counted). */
  omitted?: Record<string, number>;
  types: Record<string, TypeState>;
}

export const CHECKPOINT = 'checkpoint.json';

/**
 * Append the engine's closed buckets to their tier files under `root` (synced), updating `files`.
 * A tier's append is whole or not at all: a short write (a full disk takes what fits) is
 * continued, and one that fails cuts the file back to its length before, so that the buckets,
 * still pending, are appended again whole at the next flush and never leave a torn line.
 */
export function appendPending(root: string, engine: RollupEngine, files: Record<string, number>): void {
  for (const [rel, records] of engine.pending) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(file, 'a');
    try {
      const before = fs.fstatSync(fd).size;
      // cut or removed by someone else since the last flush: appending would record a short file as whole
      if (before < (files[rel] ?? 0)) throw new TierShort(rel, before, files[rel]!);
      const bytes = Buffer.from(records.map((r) => bucketLine(r) + '\n').join(''));
      try {
        writeAll(fd, bytes);
        fs.fsyncSync(fd);
      } catch (error) {
        fs.ftruncateSync(fd, before);
        throw error;
      }
      files[rel] = before + bytes.length;
    } finally {
      fs.closeSync(fd);
    }
    // written: not again at the next flush
    engine.pending.delete(rel);
  }
}

/** Write every byte of `bytes` (writeSync may take fewer than asked on a full disk). */
function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) {
    const n = fs.writeSync(fd, bytes, at, bytes.length - at);
    // a write that takes nothing and says nothing: the disk is full
    if (n <= 0) throw Object.assign(new Error('no space left on the device'), { code: 'ENOSPC' });
    at += n;
  }
}

/** A tier file shorter than the checkpoint (or the last flush) says it is: buckets were lost beneath the daemon. */
export class TierShort extends Error {
  constructor(readonly file: string, size: number, expected: number) {
    super(`the rollup tier file ${file} is ${size} bytes, shorter than the ${expected} bytes written to it`);
  }
}

/** A zone as the checkpoint names it: `system` by the system's zone name (a restart in another zone is seen). */
export function zoneName(zone: string): string {
  return zone === 'system' ? SystemZone.instance.name : zone;
}

/** Write the checkpoint under `root` whole (a crash leaves the old one or the new one). */
export function writeCheckpoint(root: string, checkpoint: Checkpoint): void {
  fs.mkdirSync(root, { recursive: true });
  // rewritten every flush, and the previous one is still right: no directory sync
  writeJsonAtomic(path.join(root, CHECKPOINT), checkpoint, undefined, { syncDir: false });
}

/** The checkpoint under `root`; undefined when missing, with `damaged` saying why when unreadable. */
export function readCheckpoint(root: string): { checkpoint?: Checkpoint; damaged?: string } {
  let text: string;
  try {
    text = fs.readFileSync(path.join(root, CHECKPOINT), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    return { damaged: (error as Error).message };
  }
  try {
    const value = JSON.parse(text) as Checkpoint;
    if (value?.version !== 1 || typeof value.cursor !== 'string' || typeof value.files !== 'object' || typeof value.types !== 'object') {
      return { damaged: 'it is not a rollup checkpoint' };
    }
    return { checkpoint: value };
  } catch {
    return { damaged: 'it is not valid JSON' };
  }
}

/**
 * Cut every tier file back to the length the checkpoint names (a file it does not name is
 * removed); throws TierShort when one is shorter than named, or missing (the caller rebuilds).
 */
export function cutToCheckpoint(root: string, files: Readonly<Record<string, number>>): void {
  for (const [rel, keep] of Object.entries(files)) {
    const size = fs.statSync(path.join(root, rel), { throwIfNoEntry: false })?.size ?? 0;
    if (size < keep) throw new TierShort(rel, size, keep);
  }
  for (const tier of TIERS) {
    let names: string[];
    try {
      names = fs.readdirSync(path.join(root, tier));
    } catch {
      continue;
    }
    for (const name of names) {
      const rel = path.join(tier, name);
      const keep = files[rel];
      if (keep === undefined) fs.rmSync(path.join(root, rel), { force: true });
      else if (fs.statSync(path.join(root, rel)).size > keep) fs.truncateSync(path.join(root, rel), keep);
    }
  }
}

/**
 * Finish or undo a rebuild a crash interrupted: `<root>.rebuild` unfinished is removed; when
 * `root` was moved to `<root>.old` and the rebuild not yet moved in, the old one comes back.
 */
export function settleRebuild(root: string): void {
  const old = `${root}.old`;
  if (!fs.existsSync(root) && fs.existsSync(old)) fs.renameSync(old, root);
  fs.rmSync(`${root}.rebuild`, { recursive: true, force: true });
  fs.rmSync(old, { recursive: true, force: true });
}

/** Put the rebuilt directory in place of `root` (two renames; settleRebuild finishes a crash between them). */
export function swapIn(root: string, rebuilt: string): void {
  const old = `${root}.old`;
  fs.rmSync(old, { recursive: true, force: true });
  if (fs.existsSync(root)) fs.renameSync(root, old);
  fs.renameSync(rebuilt, root);
  fs.rmSync(old, { recursive: true, force: true });
}
