import fs from 'node:fs';
import path from 'node:path';
import { listSiteFiles, RUN_FILE, siteDayOf, storedAs } from './names.js';

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
