import fs from 'node:fs';
import path from 'node:path';
import { firstEnvelope } from '../ndjson/ends.js';
import { plainName, RUN_FILE, storedAs } from '../ndjson/names.js';
import type { ReadFs } from '../ndjson/read-fs.js';
import { STATE_DIR, type KnownRun } from './state-files.js';

// The run files of a site directory found on disk, for a start without (all of) `.meridian/`:
// those runs.json names, and any `telemetry.ndjson` (or its `.gz`) one or two directories below
// the site directory (`014/`, the original service's `runs/<id>/`).

/** The run files a site directory knows of, each as stored (plain or `.gz`). */
export function runFilesOf(siteDir: string, knownRuns: readonly KnownRun[]): string[] {
  const files = new Set(knownRuns.map((run) => path.join(run.run_dir, RUN_FILE)));
  for (const dir of subdirectories(siteDir)) {
    if (path.basename(dir) === STATE_DIR) continue;
    files.add(path.join(dir, RUN_FILE));
    for (const inner of subdirectories(dir)) files.add(path.join(inner, RUN_FILE));
  }
  return [...files].map((file) => storedAs(file)).filter((file): file is string => file !== undefined);
}

/**
 * The runs of a site directory that has no runs.json (an earlier version's, the original
 * service's, or one whose `.meridian/` was lost): the id and time of the first line of every
 * run file found, oldest first, so that a derived id does not repeat one of theirs (the
 * original derived 001 for every POCS night: its runs lie under runs/).
 */
export function discoverRuns(siteDir: string, io?: ReadFs): KnownRun[] {
  const runs: KnownRun[] = [];
  for (const file of runFilesOf(siteDir, [])) {
    const first = firstEnvelope(file, io);
    const id = first?.meta?.run_id;
    if (typeof id === 'string') runs.push({ run_id: id, run_dir: path.dirname(plainName(file)), started_at: first!.ts });
  }
  return runs.sort((a, b) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : 0));
}

function subdirectories(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name));
  } catch {
    return [];
  }
}
