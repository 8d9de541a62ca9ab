import fs from 'node:fs';
import path from 'node:path';
import { MeridianError } from '../../lib/errors.js';
import { isSiteFileName } from '../ndjson/names.js';
import { STATE_DIR } from './state-files.js';

// Run start resolution: which id and which directory a new run gets.

const SAFE_ID = /^[A-Za-z0-9._-]{1,128}$/;
const MAX_ID_CHARS = 128;
// the site's stream name (history `?run=site`, cursors `site:<seq>`, forwarding, the console's
// "site"): no run may carry it, in any case (an operator cannot tell `SITE` from no run)
const SITE_STREAM = 'site';

/** Throw INVALID_RUN unless `id` is a safe single path segment that is not the site stream's name. */
export function assertSafeRunId(id: string, field: string): void {
  if (!SAFE_ID.test(id) || id === '.' || id === '..') {
    throw new MeridianError('INVALID_RUN',
      `${field} must be 1-128 letters, digits, '.', '_' or '-' (and not '.' or '..'); got ${JSON.stringify(id)}`);
  }
  if (id.toLowerCase() === SITE_STREAM) {
    throw new MeridianError('INVALID_RUN',
      `${field} ${JSON.stringify(id)} is the name of the site stream (in any case); choose another run id`);
  }
}

/**
 * The next run id after the numeric directory names under the site directory and the numeric
 * ids of earlier runs (`earlierIds`: runs whose run_dir lay elsewhere, or whose directory is
 * gone), zero-padded to at least 3 digits and to the widest of them: 001, 002 -> 003;
 * 0999 -> 1000. A name already taken by another entry (a file, a link) is skipped. A derived
 * id never repeats within a site directory; when the next number would pass 128 characters
 * (a run id's limit), the lowest free number is used instead, so a derived start always works.
 */
export function nextRunId(siteDir: string, earlierIds: readonly string[] = []): string {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(siteDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    entries = [];
  }
  const taken = new Set([...entries.map((entry) => entry.name), ...earlierIds]);
  const names = [...entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name), ...earlierIds];
  let max = 0n;
  let width = 3;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const n = BigInt(name);
    if (n > max) max = n;
    width = Math.max(width, name.length);
  }
  const free = (from: bigint, pad: number): string => {
    let id = from.toString().padStart(pad, '0');
    for (let n = from; taken.has(id); ) id = (++n).toString().padStart(pad, '0');
    return id;
  };
  const next = free(max + 1n, width);
  return next.length <= MAX_ID_CHARS ? next : free(1n, 3);
}

/** Where a run start puts its directory, as resolveRunDir judged it. */
export interface RunDirPlace {
  /** The absolute run directory to record. */
  dir: string;
  /** Its path inside the site directory with links resolved; undefined when it lies outside. */
  inSite: string | undefined;
  /** How the request named it, for error details: `run_dir "x"` or `run_id "x"`. */
  given: string;
}

/**
 * The run directory: `runDir` if given (absolute as is; relative under the site directory),
 * else `<siteDir>/<runId>`. Symbolic links are followed to judge where it really is: a
 * relative run_dir or a run id must lead inside the site directory (it is then recorded
 * without links), and no directory inside it may be the site directory itself or be or lie
 * under a name the daemon keeps for its own files (`.meridian`, `site_<YYYYMMDD>.ndjson`).
 * Anything else is INVALID_RUN. Creates nothing.
 */
export function resolveRunDir(siteDir: string, runId: string, runDir: string | undefined): RunDirPlace {
  if (runDir?.includes('\0')) throw new MeridianError('INVALID_RUN', 'run_dir must not contain NUL characters');
  const given = runDir === undefined ? `run_id ${JSON.stringify(runId)}` : `run_dir ${JSON.stringify(runDir)}`;
  if (runDir !== undefined && path.isAbsolute(runDir)) {
    const dir = path.resolve(runDir);
    const rel = path.relative(siteDir, dir);
    if (!outside(rel) && rel !== '') assertNotReserved(rel, given);
    return { dir, inSite: placeInSite(siteDir, dir, given), given };
  }
  const lexical = path.resolve(siteDir, runDir ?? runId);
  const rel = path.relative(siteDir, lexical);
  if (outside(rel) || rel === '') {
    throw new MeridianError('INVALID_RUN', `${given} must name a directory inside the site directory`);
  }
  assertNotReserved(rel, given);
  const inSite = placeInSite(siteDir, lexical, given);
  if (inSite === undefined) {
    throw new MeridianError('INVALID_RUN', `${given} leads outside the site directory through a symbolic link`);
  }
  return { dir: path.join(siteDir, inSite), inSite, given };
}

/**
 * Once the run directory exists: check that it is still where resolveRunDir judged (no link
 * swapped in meanwhile) and, inside the site directory, that its run file is no symbolic
 * link or other non-regular file. INVALID_RUN otherwise.
 */
export function checkCreatedRunDir(siteDir: string, place: RunDirPlace, runFile: string): void {
  if (place.inSite === undefined) return;
  if (placeInSite(siteDir, place.dir, place.given) !== place.inSite) {
    throw new MeridianError('INVALID_RUN', `${place.given} changed while the run was starting; try again`);
  }
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(path.join(place.dir, runFile));
  } catch {
    return; // not there yet: the run creates it
  }
  if (!stat.isFile()) {
    throw new MeridianError('INVALID_RUN',
      `${place.given}: ${path.join(place.dir, runFile)} is not a regular file (a link or a directory); a run inside the site directory writes only there`);
  }
}

/** `dir`'s path inside the site directory, links resolved; undefined when outside; INVALID_RUN when reserved. */
function placeInSite(siteDir: string, dir: string, given: string): string | undefined {
  const rel = path.relative(fs.realpathSync(siteDir), realPathOf(dir, given));
  if (outside(rel)) return undefined;
  if (rel === '') {
    throw new MeridianError('INVALID_RUN', `${given} is the site directory itself; a run needs a directory of its own`);
  }
  assertNotReserved(rel, given);
  return rel;
}

/** INVALID_RUN when a path inside the site directory is or lies under a name the daemon keeps. */
function assertNotReserved(rel: string, given: string): void {
  const first = rel.split(path.sep)[0]!;
  if (first === STATE_DIR || isSiteFileName(first)) {
    throw new MeridianError('INVALID_RUN', `${given} would use ${first}, a name the daemon keeps for its own files`);
  }
}

/** The real path `dir` has or would have: its deepest existing ancestor resolved, plus the rest. */
function realPathOf(dir: string, given: string): string {
  const rest: string[] = [];
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      return path.join(fs.realpathSync(at), ...rest);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || path.dirname(at) === at) {
        throw new MeridianError('INVALID_RUN', `Cannot use ${given} (${code ?? (error as Error).message}).`, { cause: error });
      }
      if (isLink(at)) throw new MeridianError('INVALID_RUN', `${given} leads through a broken symbolic link (${at})`);
      rest.unshift(path.basename(at));
    }
  }
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function outside(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}
