import fs from 'node:fs';
import path from 'node:path';
import type { Envelope, RunRecord } from '../../lib/wire.js';

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

/** Read a snapshot (format 2, or 1 converted); undefined when absent, an Error describing why when unusable. */
export function readSnapshot(file: string): SnapshotFile | undefined | Error {
  const raw = readIfExists(file);
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
