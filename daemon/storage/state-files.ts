import fs from 'node:fs';
import path from 'node:path';
import type { Envelope, RunRecord } from '../../lib/wire.js';

// The daemon's own bookkeeping under `<site_dir>/.meridian/`: the snapshot that makes
// start-up fast, the record of the active run, and the seqs posted with make_current false.

export const STATE_DIR = '.meridian';
const SNAPSHOT_FORMAT = 1;

/** Where one target's replay can resume: the file, the byte offset and the seq reached there. */
export interface TargetMark {
  file: string;
  offset: number;
  seq: number;
  current: Envelope[];
}

/** What the snapshot holds: the site mark and, while a run is active, the run's mark. */
export interface SnapshotFile {
  format: number;
  written_at: string;
  site: TargetMark | null;
  run: (TargetMark & { run_id: string; started_at: string }) | null;
}

/** The active run as persisted at run start, so a restart finds it again. */
export interface ActiveRunState {
  record: RunRecord;
  /** Byte length of the run file when the run started: where its view replay begins. */
  start_offset: number;
}

/** Paths of the bookkeeping files for a site directory. */
export function statePaths(siteDir: string) {
  const dir = path.join(siteDir, STATE_DIR);
  return {
    dir,
    snapshot: path.join(dir, 'snapshot.json'),
    activeRun: path.join(dir, 'active-run.json'),
    heldSite: path.join(dir, 'held-site.ndjson'),
    heldRun: path.join(dir, 'held-run.ndjson'),
  };
}

/** Write a JSON file atomically: temp file, fsync, rename, fsync of the directory. */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, JSON.stringify(value));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  syncDir(path.dirname(file));
}

/** Read a snapshot; undefined when absent, an Error describing why when unusable. */
export function readSnapshot(file: string): SnapshotFile | undefined | Error {
  const raw = readIfExists(file);
  if (raw === undefined) return undefined;
  try {
    const snap = JSON.parse(raw) as SnapshotFile;
    if (snap?.format !== SNAPSHOT_FORMAT || typeof snap.written_at !== 'string') {
      return new Error(`unknown snapshot format in ${file}`);
    }
    for (const mark of [snap.site, snap.run]) {
      if (mark !== null && (typeof mark?.file !== 'string' || !Number.isSafeInteger(mark.offset)
        || !Number.isSafeInteger(mark.seq) || !Array.isArray(mark.current))) {
        return new Error(`snapshot ${file} is incomplete`);
      }
    }
    return snap;
  } catch (error) {
    return new Error(`snapshot ${file} is not valid JSON (${(error as Error).message})`);
  }
}

/** The snapshot format written now. */
export function newSnapshot(writtenAt: string, site: TargetMark | null, run: SnapshotFile['run']): SnapshotFile {
  return { format: SNAPSHOT_FORMAT, written_at: writtenAt, site, run };
}

/** Read the active run state; undefined when none (or unreadable, reported through `warn`). */
export function readActiveRun(file: string, warn: (message: string) => void): ActiveRunState | undefined {
  const raw = readIfExists(file);
  if (raw === undefined) return undefined;
  try {
    const state = JSON.parse(raw) as ActiveRunState;
    if (typeof state?.record?.run_id === 'string' && typeof state.record.run_dir === 'string') return state;
  } catch { /* reported below */ }
  warn(`active run record ${file} is unreadable; starting with no active run`);
  return undefined;
}

/** Read the held seqs (posted with make_current false) of a target. */
export function readHeld(file: string): Set<number> {
  const held = new Set<number>();
  for (const line of (readIfExists(file) ?? '').split('\n')) {
    const seq = Number(line);
    if (line !== '' && Number.isSafeInteger(seq)) held.add(seq);
  }
  return held;
}

/** Remove a file if it exists. */
export function removeIfExists(file: string): void {
  fs.rmSync(file, { force: true });
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  } catch { /* some filesystems cannot sync directories */ }
}
