import fs from 'node:fs';
import path from 'node:path';
import type { Envelope, RunRecord } from '../../lib/wire.js';
import { nodeFs, type StorageFs } from './storage-fs.js';

// The daemon's own bookkeeping under `<site_dir>/.meridian/`: the snapshot that makes
// start-up fast, the record of the active run, the runs this site directory has seen, and
// the side files of each target (held seqs, ephemeral readings).

export const STATE_DIR = '.meridian';
/** Format 2 keeps the current view as envelope lines (exact numbers); format 1 is still read. */
const SNAPSHOT_FORMAT = 2;

/** Where one target's replay can resume: the file, the byte offset and the seq reached there. */
export interface TargetMark {
  file: string;
  offset: number;
  seq: number;
}

/** What the snapshot holds: the site mark, the active run's mark, the current view's lines. */
export interface SnapshotFile {
  format: number;
  written_at: string;
  site: TargetMark | null;
  run: (TargetMark & { run_id: string; started_at: string }) | null;
  /** The envelope line of every current reading, in the order they became current. */
  current: string[];
}

/** Format 1: each mark held the current envelopes of its target (the run's overlaid the site's). */
interface SnapshotFileV1 {
  format: 1;
  written_at: string;
  site: (TargetMark & { current: Envelope[] }) | null;
  run: (TargetMark & { current: Envelope[]; run_id: string; started_at: string }) | null;
}

/** One run this site directory has seen (for run ids that never repeat, and seqs that continue). */
export interface KnownRun {
  run_id: string;
  run_dir: string;
  started_at: string;
  /** The last seq the run used, once it stopped (ephemeral readings at the end have no line). */
  last_seq?: number;
}

/** The active run as persisted at run start, so a restart finds it again. */
export interface ActiveRunState {
  record: RunRecord;
  /** The record as answered, meta spelled as the caller sent it (absent in records of earlier versions). */
  record_json?: string;
  /** Byte length of the run file when the run started: where its view replay begins. */
  start_offset: number;
  /** The seq the run continued after (absent in records of earlier versions). */
  start_seq?: number;
}

/** Paths of the bookkeeping files for a site directory. */
export function statePaths(siteDir: string) {
  const dir = path.join(siteDir, STATE_DIR);
  return {
    dir,
    snapshot: path.join(dir, 'snapshot.json'),
    activeRun: path.join(dir, 'active-run.json'),
    runs: path.join(dir, 'runs.json'),
    site: { held: path.join(dir, 'held-site.ndjson'), ephemeral: path.join(dir, 'ephemeral-site.ndjson') },
    run: { held: path.join(dir, 'held-run.ndjson'), ephemeral: path.join(dir, 'ephemeral-run.ndjson') },
    timeline: path.join(dir, 'timeline.ndjson'),
    index: path.join(dir, 'index'),
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

/** Read a snapshot (format 2, or 1 converted); undefined when absent, an Error describing why when unusable. */
export function readSnapshot(file: string): SnapshotFile | undefined | Error {
  let raw: string | undefined;
  try {
    raw = readIfExists(file);
  } catch (error) {
    return new Error(`snapshot ${file} cannot be read (${errorCode(error)})`);
  }
  if (raw === undefined) return undefined;
  let snap: SnapshotFile | SnapshotFileV1;
  try {
    snap = JSON.parse(raw) as SnapshotFile | SnapshotFileV1;
  } catch (error) {
    return new Error(`snapshot ${file} is not valid JSON (${(error as Error).message})`);
  }
  if ((snap?.format !== SNAPSHOT_FORMAT && snap?.format !== 1) || typeof snap.written_at !== 'string') {
    return new Error(`unknown snapshot format in ${file}`);
  }
  const marks: Array<TargetMark | null> = [snap.site, snap.run];
  const v1 = snap as SnapshotFileV1;
  const current: unknown = snap.format === 1
    ? [v1.site?.current ?? [], v1.run?.current ?? []].flatMap((list) => (Array.isArray(list) ? list : [undefined]))
    : (snap as SnapshotFile).current;
  if (!Array.isArray(current) || current.includes(undefined) || marks.some((m) => m !== null && (typeof m?.file !== 'string'
    || !Number.isSafeInteger(m.offset) || !Number.isSafeInteger(m.seq)))) {
    return new Error(`snapshot ${file} is incomplete`);
  }
  if (snap.format === SNAPSHOT_FORMAT) return snap as SnapshotFile;
  // format 1: envelopes as objects; the run's readings overlay the site's
  const { site, run } = v1;
  const strip = (mark: TargetMark | null): TargetMark | null => mark && { file: mark.file, offset: mark.offset, seq: mark.seq };
  return {
    format: SNAPSHOT_FORMAT, written_at: snap.written_at, site: strip(site),
    run: run && { ...strip(run)!, run_id: run.run_id, started_at: run.started_at },
    current: (current as Envelope[]).map((env) => JSON.stringify(env)),
  };
}

/** The snapshot format written now. */
export function newSnapshot(writtenAt: string, site: TargetMark | null, run: SnapshotFile['run'], current: string[]): SnapshotFile {
  return { format: SNAPSHOT_FORMAT, written_at: writtenAt, site, run, current };
}

/** The runs recorded in `runs.json`, oldest first; [] when none (or unreadable, reported through `warn`). */
export function readKnownRuns(file: string, warn: (message: string) => void): KnownRun[] {
  const raw = readIfExists(file);
  if (raw === undefined) return [];
  try {
    const runs = (JSON.parse(raw) as { runs?: unknown }).runs;
    if (Array.isArray(runs)) {
      return runs.filter((r): r is KnownRun => typeof r?.run_id === 'string' && typeof r.run_dir === 'string');
    }
  } catch { /* reported below */ }
  warn(`run list ${file} is unreadable; run ids are derived from the directories only`);
  return [];
}

/** Write the list of known runs (atomically). */
export function writeKnownRuns(file: string, runs: KnownRun[]): void {
  writeJsonAtomic(file, { format: 1, runs });
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
