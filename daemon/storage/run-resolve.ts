import fs from 'node:fs';
import path from 'node:path';
import { MeridianError } from '../../lib/errors.js';

// Run start resolution: which id and which directory a new run gets.

const SAFE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Throw INVALID_RUN unless `id` is a safe single path segment. */
export function assertSafeRunId(id: string, field: string): void {
  if (!SAFE_ID.test(id) || id === '.' || id === '..') {
    throw new MeridianError('INVALID_RUN',
      `${field} must be 1-128 letters, digits, '.', '_' or '-' (and not '.' or '..'); got ${JSON.stringify(id)}`);
  }
}

/**
 * The next run id after the numeric directory names under the site directory and the numeric
 * ids of earlier runs (`earlierIds`: runs whose run_dir lay elsewhere, or whose directory is
 * gone), zero-padded to at least 3 digits and to the widest of them: 001, 002 -> 003;
 * 0999 -> 1000. A derived id never repeats within a site directory.
 */
export function nextRunId(siteDir: string, earlierIds: readonly string[] = []): string {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(siteDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    entries = [];
  }
  const names = [...entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name), ...earlierIds];
  let max = 0n;
  let width = 3;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const n = BigInt(name);
    if (n > max) max = n;
    width = Math.max(width, name.length);
  }
  return (max + 1n).toString().padStart(width, '0');
}

/**
 * The run directory: `runDir` if given (absolute as is, relative under the site directory
 * and never outside it), else `<siteDir>/<runId>`.
 */
export function resolveRunDir(siteDir: string, runId: string, runDir: string | undefined): string {
  if (runDir === undefined) return path.join(siteDir, runId);
  if (runDir.includes('\0')) throw new MeridianError('INVALID_RUN', 'run_dir must not contain NUL characters');
  if (path.isAbsolute(runDir)) return path.resolve(runDir);
  const resolved = path.resolve(siteDir, runDir);
  const rel = path.relative(siteDir, resolved);
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new MeridianError('INVALID_RUN',
      `run_dir ${JSON.stringify(runDir)} must name a directory inside the site directory`);
  }
  return resolved;
}
