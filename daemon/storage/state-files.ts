import fs from 'node:fs';
import path from 'node:path';
import { setMember } from '../../lib/json-text.js';
import type { RunRecord } from '../../lib/wire.js';
import type { SitePlaces } from './site-places.js';
import { nodeFs, type StorageFs } from './storage-fs.js';

// The daemon's own bookkeeping under `<site_dir>/.meridian/`: the snapshot that makes
// start-up fast, the record of the active run, the runs this site directory has seen, and
// the side files of each target (held seqs, ephemeral readings).

export const STATE_DIR = '.meridian';

/** Where one target's replay can resume: the file, the byte offset and the seq reached there. */
export interface TargetMark {
  file: string;
  offset: number;
  seq: number;
}

/** One run this site directory has seen (for run ids that never repeat, and seqs that continue). */
export interface KnownRun {
  run_id: string;
  run_dir: string;
  started_at: string;
  /** The last seq the run used, once it stopped (ephemeral readings at the end have no line). */
  last_seq?: number;
  /** Its last seq is only a floor (a suspended run stopped while its file was away): a start of its id or directory reads its file, else continues after the clock. */
  end_unknown?: true;
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

/** The site seq's high-water mark under `.meridian/`, written with every snapshot. */
export const SITE_SEQ_FILE = 'site-seq.json';

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
    batch: path.join(dir, 'batch.json'),
    siteSeq: path.join(dir, SITE_SEQ_FILE),
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
  writeFileAtomic(file, (put) => put(Buffer.from(JSON.stringify(value), 'utf8')), io, opts);
}

/**
 * writeJsonAtomic for a file written in pieces (`write` calls `put` once per piece, so no
 * piece need hold the whole: the snapshot of a large view). The file's length is checked
 * against the bytes put before it is synced and renamed.
 */
export function writeFileAtomic(file: string, write: (put: (piece: Buffer) => void) => void, io: StorageFs = nodeFs,
  opts: { syncDir?: boolean } = {}): void {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    const fd = io.openSync(tmp, 'w');
    try {
      let total = 0;
      write((buf) => {
        for (let done = 0; done < buf.length;) {
          const n = io.writeSync(fd, buf, done, buf.length - done);
          if (!(n > 0)) throw Object.assign(new Error(`short write to ${tmp}: ${done} of ${buf.length} bytes`), { code: 'EIO' });
          done += n;
        }
        total += buf.length;
      });
      const size = io.fstatSync(fd).size;
      if (size !== total) throw Object.assign(new Error(`${tmp} holds ${size} bytes, ${total} were written`), { code: 'EIO' });
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

/**
 * The runs recorded in `runs.json`, oldest first, each run_dir where it is now (site-places.ts);
 * [] when none, undefined when it is damaged (reported through `warn`: the caller finds the
 * runs on disk instead). A list of an earlier version (absolute paths inside the site
 * directory) is written again in the recorded form.
 */
export function readKnownRuns(file: string, warn: (message: string) => void, places: SitePlaces): KnownRun[] | undefined {
  let raw: string | undefined;
  try {
    raw = readIfExists(file);
  } catch (error) {
    warn(`run list ${file} cannot be read (${errorCode(error)}); the runs are found again from the run files and the timeline`);
    return undefined;
  }
  if (raw === undefined) return [];
  try {
    const runs = (JSON.parse(raw) as { runs?: unknown }).runs;
    if (Array.isArray(runs)) {
      const known = runs.filter((r): r is KnownRun => typeof r?.run_id === 'string' && typeof r.run_dir === 'string');
      const placed = known.map((run) => ({ ...run, run_dir: places.place(run.run_dir) }));
      if (known.some((run) => places.stale(run.run_dir))) rewrite(file, () => writeKnownRuns(file, placed, places), warn);
      return placed;
    }
  } catch { /* reported below */ }
  warn(`run list ${file} is damaged (not a run list); the runs are found again from the run files and the timeline`);
  return undefined;
}

/** Write the list of known runs (atomically), each run_dir in its recorded form. */
export function writeKnownRuns(file: string, runs: KnownRun[], places: SitePlaces): void {
  writeJsonAtomic(file, { format: 1, runs: runs.map((run) => ({ ...run, run_dir: places.record(run.run_dir) })) });
}

/** Write the active run record (atomically), its run_dir in the recorded form (in the record as answered too). */
export function writeActiveRun(file: string, state: ActiveRunState, places: SitePlaces, io: StorageFs = nodeFs): void {
  writeJsonAtomic(file, recordedState(state, places.record(state.record.run_dir)), io);
}

/** A state whose run_dir (in the record and the record as answered) is `runDir`. */
function recordedState(state: ActiveRunState, runDir: string): ActiveRunState {
  const dirJson = JSON.stringify(runDir);
  return { ...state, record: { ...state.record, run_dir: runDir },
    ...(state.record_json === undefined ? {} : { record_json: setMember(state.record_json, 'run_dir', dirJson) }) };
}

/** Write a state file of an earlier version again in the recorded form; a failure is only reported (it is read right either way). */
function rewrite(file: string, write: () => void, warn: (message: string) => void): void {
  try {
    write();
  } catch (error) {
    warn(`could not write ${file} with paths relative to the site directory (${errorCode(error)})`);
  }
}

/**
 * Read the active run state; undefined when none, or when it cannot be read or is not a
 * whole record (reported through `warn`: the daemon then starts with no active run).
 */
export function readActiveRun(file: string, warn: (message: string) => void, places: SitePlaces): ActiveRunState | undefined {
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
    if (typeof record?.run_id === 'string' && typeof record.run_dir === 'string' && record.run_dir !== ''
      && typeof record.started_at === 'string' && isObject(record.meta)
      && Number.isSafeInteger(state.start_offset) && state.start_offset >= 0) {
      // the run_dir where it is now (site-places.ts), also in the record as answered
      const placed = recordedState(state, places.place(record.run_dir));
      if (places.stale(record.run_dir)) rewrite(file, () => writeActiveRun(file, placed, places), warn);
      return placed;
    }
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
  // the piece after the last newline is a line torn by a crash (its digits may be a prefix of the seq): not read
  const lines = (raw ?? '').split('\n').slice(0, -1);
  let bad = 0;
  for (const line of lines) {
    const seq = Number(line);
    if (line !== '' && /^\d+$/.test(line) && Number.isSafeInteger(seq)) held.add(seq);
    else bad++;
  }
  if (bad > 0) warn(`held seqs ${file} is damaged (${bad} line(s) not a seq); readings posted with make_current false may become current`);
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

/**
 * The site seq's high-water mark (`site-seq.json`, written with every snapshot): 0 when absent,
 * undefined when damaged (empty, not `{"site_seq": N}`, unreadable; reported through `warn`).
 */
export function readSiteSeq(file: string, warn: (message: string) => void): number | undefined {
  let raw: string | undefined;
  try {
    raw = readIfExists(file);
    if (raw === undefined) return 0;
    const seq = (JSON.parse(raw) as { site_seq?: unknown }).site_seq;
    if (Number.isSafeInteger(seq) && (seq as number) >= 0) return seq as number;
  } catch (error) {
    if (raw === undefined) {
      warn(`the site seq record ${file} cannot be read (${errorCode(error)})`);
      return undefined;
    }
  }
  warn(`the site seq record ${file} is damaged (${raw === '' ? 'empty' : 'not {"site_seq": N}'})`);
  return undefined;
}

/** A file's text, or undefined when it does not exist. */

export function readIfExists(file: string): string | undefined {
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

// the temp file of writeFileAtomic and of a cursor's whole write: `<name>.tmp-<pid>`
const LEFTOVER_TEMP = /^(.+)\.tmp-(\d+)$/;

/**
 * Remove the temp files (`<state file>.tmp-<pid>`) a daemon killed while writing a state file
 * left under `dir` (`.meridian/` and its directories: forward cursors, rollups): only ours by
 * that exact pattern, and never one of a process still alive (a CLI command writing now). Each
 * removal is said in an INFO line. Called at start, with the site's lock held.
 */
export function removeLeftoverTemps(dir: string, say: (message: string) => void, alive: (pid: number) => boolean, depth = 2): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (depth > 0) removeLeftoverTemps(file, say, alive, depth - 1);
      continue;
    }
    const match = LEFTOVER_TEMP.exec(entry.name);
    if (!entry.isFile() || !match || alive(Number(match[2]))) continue;
    try {
      fs.rmSync(file);
      say(`removed ${file}, a temp file left by a process that died writing ${match[1]} (the file itself is as last written whole)`);
    } catch (error) {
      say(`could not remove ${file}, a temp file left by a process that died writing ${match[1]} (${errorCode(error)})`);
    }
  }
}
