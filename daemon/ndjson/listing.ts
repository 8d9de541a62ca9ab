import fs from 'node:fs';
import path from 'node:path';
import { judgeFile, type FileJudgement } from './file-state.js';
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
  /** `duplicate`: a `.gz` beside the plain file of the same day or run (the plain one is read); `unknown`: no site day file's name. */
  state: FileJudgement['state'] | 'duplicate' | 'unknown';
  reason?: string;
}

/** Every file `listDataFiles` stands for, both of a day or run stored plain and `.gz`, each judged; then the lookalike names. */
export function listStoredFiles(siteDir: string): StoredFile[] {
  let entries: fs.Dirent[] = [];
  try {
    entries = fs.readdirSync(siteDir, { withFileTypes: true });
  } catch { /* no site directory yet */ }
  const files: StoredFile[] = [];
  const names = everySiteFile(entries);
  for (const name of names) files.push(...stored('day', siteDayOf(name)!, path.join(siteDir, name), names.includes(plainName(name))));
  for (const dir of runDirectories(siteDir)) {
    const plain = path.join(siteDir, dir, RUN_FILE);
    const hasPlain = fs.existsSync(plain);
    files.push(...stored('run', dir, plain, false), ...stored('run', dir, plain + GZ, hasPlain));
  }
  for (const e of entries.filter((x) => !x.isDirectory() && isSiteLookalike(x.name)).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const reason = 'its name is no site day file\'s (site_<YYYYMMDD>.ndjson of a calendar date): the daemon neither reads, forwards, compresses nor deletes it';
    files.push(...stored('unknown', e.name, path.join(siteDir, e.name), false).map((f) => ({ ...f, state: 'unknown' as const, reason })));
  }
  return files;
}

function stored(kind: StoredFile['kind'], name: string, file: string, besidePlain: boolean): StoredFile[] {
  const entry = describe('day', name, file);
  if (!entry) return [];
  const base = { ...entry, kind };
  if (besidePlain && file.endsWith(GZ)) {
    return [{ ...base, state: 'duplicate', reason: 'the plain file beside it is the one read (a compression was interrupted; the next housekeeping pass keeps one of the two)' }];
  }
  return [{ ...base, ...judgeFile(file, entry.bytes) }];
}
