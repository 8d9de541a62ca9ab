import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isRegularFile, notRegularKind } from './regular.js';

// The names of the recorded files: site day files `site_<YYYYMMDD>.ndjson`, run files
// `<run_dir>/telemetry.ndjson`, each stored plain or as `<name>.gz` once compressed. Every
// room names and lists them through here.

/** The suffix of a compressed data file. */
export const GZ = '.gz';

/** The file name of a run's telemetry inside its run_dir. */
export const RUN_FILE = 'telemetry.ndjson';

const SITE_FILE = /^site_(\d{8})\.ndjson(\.gz)?$/;
// what the daemon's own names look like: a file of this form that is no site day file (not a
// date: `site_20261301.ndjson`) is left alone by every reader, and `du` names it
const SITE_LIKE = /^site_.*\.ndjson(\.gz)?$/;

/** Whether `key` (`YYYYMMDD`) is a date of the calendar (`20261301` and `20260230` are not). */
export function isDayKey(key: string): boolean {
  if (!/^\d{8}$/.test(key)) return false;
  const [y, m, d] = [Number(key.slice(0, 4)), Number(key.slice(4, 6)), Number(key.slice(6, 8))];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d && y >= 1000;
}

// the day key of a site day file's name: the name's form and a calendar date, one rule for every room
function dayOfName(name: string): string | undefined {
  const key = SITE_FILE.exec(name)?.[1];
  return key !== undefined && isDayKey(key) ? key : undefined;
}

/** The name of the site file of a day key. */
export function siteFileName(dayKey: string): string {
  return `site_${dayKey}.ndjson`;
}

/** Whether a name is the daemon's: a site day file's (plain or `.gz`) or one that looks like it (`site_20261301.ndjson`); names runs may not take. */
export function isSiteFileName(name: string): boolean {
  return SITE_LIKE.test(name);
}

/** Whether a name looks like a site day file's but is none (`site_20261301.ndjson`): every reader leaves it alone. */
export function isSiteLookalike(name: string): boolean {
  return SITE_LIKE.test(name) && dayOfName(name) === undefined;
}

/** The day key (`YYYYMMDD`) of a site day file's path or name, plain or `.gz`; undefined for any other file. */
export function siteDayOf(file: string): string | undefined {
  return dayOfName(path.basename(file));
}

/** The plain name of a data file: `site_20260317.ndjson.gz` -> `site_20260317.ndjson`. */
export function plainName(file: string): string {
  return file.endsWith(GZ) ? file.slice(0, -GZ.length) : file;
}

/** Whether a data file is stored compressed. */
export function isCompressed(file: string): boolean {
  return file.endsWith(GZ);
}

/**
 * The file a plain data file is stored as now: itself, else its `.gz`, else undefined (a
 * directory or FIFO at the path is none). A plain file that is broken beside a whole `.gz`
 * (brokenBeside) is not the one read: the `.gz` is.
 */
export function storedAs(plain: string): string | undefined {
  if (isRegularFile(plain) && brokenBeside(plain) === undefined) return plain;
  return isRegularFile(plain + GZ) ? plain + GZ : undefined;
}

/**
 * Why a plain data file beside its `.gz` (a regular file) is broken: it holds no line (0 bytes:
 * the `.gz` holds the day or run), it is no regular file, or it cannot be looked at (a link
 * looping, ELOOP); undefined when it is whole (an interrupted compression leaves two whole
 * copies: the plain one is read) or no `.gz` is beside it.
 */
export function brokenBeside(plain: string): string | undefined {
  if (!isRegularFile(plain + GZ)) return undefined;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(plain);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' && !isLink(plain) ? undefined : `it cannot be read (${code ?? (error as Error).message})`;
  }
  if (!stat.isFile()) return `not a regular file (${notRegularKind(stat) ?? 'not a regular file'})`;
  return stat.size === 0 && fs.statSync(plain + GZ).size > 0 ? 'it holds no line (0 bytes)' : undefined;
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The site day files among a directory's entries, oldest first, each as it is stored: the
 * plain file when both it and its `.gz` are there (a compression interrupted after its
 * rename: the plain file is the one still whole by definition). Only regular files (and links) count.
 */
export function pickSiteFiles(entries: readonly fs.Dirent[], dir?: string): string[] {
  // a FIFO, socket or device under a day file's name is no data file: skipped (du names it); so is a link to one, or a looping link
  const days = everySiteFile(entries.filter((e) => e.isFile() || (e.isSymbolicLink() && (dir === undefined || isRegularFile(path.join(dir, e.name))))));
  // a plain file broken beside its .gz (0 bytes, a looping link) gives way to the .gz (brokenBeside; named at start-up)
  const gz = new Set(days.filter((n) => n.endsWith(GZ)));
  const plain = new Set(days.filter((n) => !n.endsWith(GZ) && !(gz.has(n + GZ) && dir !== undefined && brokenBeside(path.join(dir, n)) !== undefined)));
  return days.filter((n) => (n.endsWith(GZ) ? !plain.has(plainName(n)) : plain.has(n))).sort();
}

/** Every site day file among a directory's entries by name, both of a day stored plain and `.gz` (`du` counts both). */
export function everySiteFile(entries: readonly fs.Dirent[]): string[] {
  return entries.filter((e) => !e.isDirectory() && dayOfName(e.name) !== undefined).map((e) => e.name).sort();
}

/** The site day files of a directory as stored, oldest first (none when it does not exist). */
export function listSiteFiles(siteDir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(siteDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return pickSiteFiles(entries, siteDir).map((n) => path.join(siteDir, n));
}

/** listSiteFiles without holding the event loop (queries); an unreadable directory lists nothing. */
export async function listSiteFilesAsync(siteDir: string): Promise<string[]> {
  const entries = await fsp.readdir(siteDir, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
  return pickSiteFiles(entries, siteDir).map((n) => path.join(siteDir, n));
}
