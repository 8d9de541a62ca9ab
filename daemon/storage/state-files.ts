import fs from 'node:fs';
import path from 'node:path';
import type { Envelope, RunRecord } from '../../lib/wire.js';
import { nodeFs, type StorageFs } from './storage-fs.js';

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

/**
 * Write a JSON file whole or not at all: a temporary file written to its full length (short
 * writes continued, a write that makes no progress is an error), fsync, rename over `file`,
 * fsync of the directory (unless `syncDir` is false: a power cut may then leave the previous
 * version, never a torn one; for files rewritten often whose previous version is still
 * correct, such as forwarding cursors). On any failure the temporary file is removed, `file`
 * is as it was and the error is thrown.
 */
export function writeJsonAtomic(file: string, value: unknown, io: StorageFs = nodeFs, opts: { syncDir?: boolean } = {}): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const buf = Buffer.from(JSON.stringify(value), 'utf8');
  try {
    const fd = io.openSync(tmp, 'w');
    try {
      for (let done = 0; done < buf.length;) {
        const n = io.writeSync(fd, buf, done, buf.length - done);
        if (!(n > 0)) throw Object.assign(new Error(`short write to ${tmp}: ${done} of ${buf.length} bytes`), { code: 'EIO' });
        done += n;
      }
      io.fsyncSync(fd);
    } finally {
      io.closeSync(fd);
    }
    io.renameSync(tmp, file);
  } catch (error) {
    try { io.rmSync(tmp, { force: true }); } catch { /* the error below says what went wrong */ }
    throw error;
  }
  if (opts.syncDir ?? true) syncDir(path.dirname(file), io);
}

/** Read a snapshot; undefined when absent, an Error describing why when unusable or unreadable. */
export function readSnapshot(file: string): SnapshotFile | undefined | Error {
  let raw: string | undefined;
  try {
    raw = readIfExists(file);
  } catch (error) {
    return new Error(`snapshot ${file} cannot be read (${errorCode(error)})`);
  }
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

/**
 * Read the active run state; undefined when none, or when it cannot be read or is not a
 * whole record (reported through `warn`: the daemon then starts with no active run).
 */
export function readActiveRun(file: string, warn: (message: string) => void): ActiveRunState | undefined {
  let raw: string | undefined;
  try {
    raw = readIfExists(file);
  } catch (error) {
    warn(`active run record ${file} cannot be read (${errorCode(error)}); starting with no active run`);
    return undefined;
  }
  if (raw === undefined) return undefined;
  try {
    const state = JSON.parse(raw) as ActiveRunState;
    const record = state?.record;
    if (typeof record?.run_id === 'string' && typeof record.run_dir === 'string' && path.isAbsolute(record.run_dir)
      && typeof record.started_at === 'string' && isObject(record.meta)
      && Number.isSafeInteger(state.start_offset) && state.start_offset >= 0) return state;
  } catch { /* reported below */ }
  warn(`active run record ${file} is damaged (not a whole run record); starting with no active run`);
  return undefined;
}

/**
 * Read the held seqs (posted with make_current false) of a target. A file that cannot be
 * read counts as empty (reported through `warn`): a replay may then make such a reading current.
 */
export function readHeld(file: string, warn: (message: string) => void): Set<number> {
  const held = new Set<number>();
  let raw: string | undefined;
  try {
    raw = readIfExists(file);
  } catch (error) {
    warn(`held seqs ${file} cannot be read (${errorCode(error)}); readings posted with make_current false may become current`);
  }
  for (const line of (raw ?? '').split('\n')) {
    const seq = Number(line);
    if (line !== '' && Number.isSafeInteger(seq)) held.add(seq);
  }
  return held;
}

/** Remove a state file if it exists, and sync its directory so that the removal lasts. */
export function removeIfExists(file: string, io: StorageFs = nodeFs): void {
  io.rmSync(file, { force: true });
  syncDir(path.dirname(file), io);
}

/** The errno code of a file-system error, else its message: for log lines and details. */
export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function syncDir(dir: string, io: StorageFs): void {
  try {
    const fd = io.openSync(dir, 'r');
    try { io.fsyncSync(fd); } finally { io.closeSync(fd); }
  } catch { /* some filesystems cannot sync directories */ }
}
