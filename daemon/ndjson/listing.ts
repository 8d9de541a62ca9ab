import fs from 'node:fs';
import path from 'node:path';
import { judgeFile, type FileJudgement } from './file-state.js';
import { notRegularKind } from './regular.js';
import { everySiteFile, GZ, isSiteLookalike, listSiteFiles, plainName, RUN_FILE, siteDayOf, storedAs } from './names.js';

// The data files of a site directory: its site day files and the files of the runs kept
// in it (`<site_dir>/<run>/telemetry.ndjson`), each as stored (plain or gzipped).

/** One data file: what it holds, where it is stored, and its size and age. */
export interface DataFile {
  kind: 'day' | 'run';
  /** `YYYYMMDD` for a day file, the run directory's name for a run file. */
  name: string;
  /** The path as stored (`.gz` when compressed). */
  file: string;
  bytes: number;
  /** Last modification, epoch ms (kept when a file is compressed). */
  mtimeMs: number;
}

/** Every data file under `siteDir`: day files oldest first, then run files by directory name. */
export function listDataFiles(siteDir: string): DataFile[] {
  const files: DataFile[] = [];
  for (const file of listSiteFiles(siteDir)) {
    const entry = describe('day', siteDayOf(file)!, file);
    if (entry) files.push(entry);
  }
  for (const dir of runDirectories(siteDir)) {
    const stored = storedAs(path.join(siteDir, dir, RUN_FILE));
    const entry = stored && describe('run', dir, stored);
    if (entry) files.push(entry);
  }
  return files;
}

/** The names of the directories directly under `siteDir` that may hold a run (not hidden ones), sorted. */
export function runDirectories(siteDir: string): string[] {
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(siteDir, { withFileTypes: true });
  } catch { /* no site directory yet */ }
  return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
}

function describe(kind: DataFile['kind'], name: string, file: string): DataFile | undefined {
  try {
    const stat = fs.statSync(file);
    return { kind, name, file, bytes: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined; // removed in between
  }
}

/** A file of a site directory as `telemetry du` shows it: every file of a day or run, and the names the daemon leaves alone. */
export interface StoredFile extends Omit<DataFile, 'kind'> {
  kind: DataFile['kind'] | 'unknown';
  /** `duplicate`: a `.gz` beside the plain file of the same day or run (the plain one is read); `unknown`: no site day file's name; `temp`: a leftover temp file. */
  state: FileJudgement['state'] | 'duplicate' | 'unknown' | 'temp';
  reason?: string;
}

// the temp files a compression (`<file>.gz.tmp`) or a restore (`<file>.restore.tmp`) writes beside a data file
const TEMP_SUFFIXES = ['.gz.tmp', '.restore.tmp'];
const TEMP_REASON = 'a temp file left by an interrupted compression or restore: no reader takes it (the next housekeeping pass removes a compression\'s)';

/**
 * Every file `listDataFiles` stands for, both of a day or run stored plain and `.gz`, each
 * judged, with the temp files left beside them; run files directly under the site directory,
 * two levels down (the original service's `runs/<id>/`) and wherever `knownRunDirs` (the
 * runs.json run directories, absolute) say; then the lookalike names.
 */
export function listStoredFiles(siteDir: string, knownRunDirs: readonly string[] = []): StoredFile[] {
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(siteDir, { withFileTypes: true });
  } catch { /* no site directory yet */ }
  const files: StoredFile[] = [];
  const names = everySiteFile(entries);
  for (const name of names) files.push(...stored('day', siteDayOf(name)!, path.join(siteDir, name), names.includes(plainName(name))));
  for (const e of entries.filter((x) => !x.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const suffix = TEMP_SUFFIXES.find((t) => e.name.endsWith(t));
    const day = suffix && siteDayOf(e.name.slice(0, -suffix.length));
    if (day) files.push(...temp('day', day, path.join(siteDir, e.name)));
  }
  for (const [name, dir] of everyRunDirectory(siteDir, knownRunDirs)) {
    const plain = path.join(dir, RUN_FILE);
    const hasPlain = fs.existsSync(plain);
    files.push(...stored('run', name, plain, false), ...stored('run', name, plain + GZ, hasPlain));
    for (const suffix of TEMP_SUFFIXES) files.push(...temp('run', name, plain + suffix));
  }
  for (const e of entries.filter((x) => !x.isDirectory() && isSiteLookalike(x.name)).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const reason = 'its name is no site day file\'s (site_<YYYYMMDD>.ndjson of a calendar date): the daemon neither reads, forwards, compresses nor deletes it';
    files.push(...stored('unknown', e.name, path.join(siteDir, e.name), false).map((f) => ({ ...f, state: 'unknown' as const, reason })));
  }
  return files;
}

// run directories by name (relative to the site directory when inside it): the ones directly
// under it, their subdirectories, and the known ones
function everyRunDirectory(siteDir: string, knownRunDirs: readonly string[]): [string, string][] {
  const dirs = new Map<string, string>();
  const add = (dir: string) => {
    const rel = path.relative(siteDir, dir);
    dirs.set(rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : dir, dir);
  };
  for (const dir of runDirectories(siteDir)) {
    add(path.join(siteDir, dir));
    for (const inner of runDirectories(path.join(siteDir, dir))) add(path.join(siteDir, dir, inner));
  }
  for (const dir of knownRunDirs) add(path.resolve(dir));
  return [...dirs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function temp(kind: DataFile['kind'], name: string, file: string): StoredFile[] {
  const entry = describe(kind, name, file);
  return entry ? [{ ...entry, state: 'temp', reason: TEMP_REASON }] : [];
}

function stored(kind: StoredFile['kind'], name: string, file: string, besidePlain: boolean): StoredFile[] {
  const entry = describe('day', name, file);
  if (!entry) return [];
  const base = { ...entry, kind };
  if (besidePlain && file.endsWith(GZ)) {
    return [{ ...base, state: 'duplicate', reason: 'the plain file beside it is the one read (a compression was interrupted; the next housekeeping pass keeps one of the two)' }];
  }
  const odd = kindAt(file);
  if (odd) return [{ ...base, state: 'damaged', reason: `not a regular file (${odd}): no reader takes it` }];
  return [{ ...base, ...judgeFile(file, entry.bytes) }];
}

// what a non-regular file at a data file's path is (a FIFO is judged by its type, never opened)
function kindAt(file: string): string | undefined {
  try {
    return notRegularKind(fs.statSync(file));
  } catch {
    return undefined;
  }
}
