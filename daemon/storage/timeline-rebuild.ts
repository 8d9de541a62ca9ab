import { lastSeq } from '../ndjson/ends.js';
import { canonicalTs, lineHead } from '../ndjson/head.js';
import { RUN_FILE, storedAs } from '../ndjson/names.js';
import { scanLines } from '../ndjson/scan.js';
import type { Logger } from '../../lib/log.js';
import path from 'node:path';
import { LineFile } from './line-file.js';
import type { KnownRun } from './state-files.js';
import type { SitePlaces } from './site-places.js';
import type { StorageFs } from './storage-fs.js';

// The timeline rebuilt when its journal is lost (`.meridian/` deleted, or a directory of an
// earlier version) while run files are there: each run found is put back in the record order
// after the last site event older than its first line (by `ts`), as one segment holding its
// whole file. Without it, runs would vanish from /history and stream replays.

/**
 * Write the journal lines of `runs` (oldest first) to `journal`, which does not exist: one
 * start and one stop per run, the site seq taken from the site files. Reads every site line
 * once (only in this case: a start without the journal already replays every file).
 */
export function rebuildTimeline(journal: string, siteFiles: readonly string[], runs: readonly KnownRun[],
  io: StorageFs, logger: Logger, places: SitePlaces): void {
  const found = runs.map((run) => ({ run, file: path.join(run.run_dir, RUN_FILE), first: canonicalTs(run.started_at) }))
    .filter((r) => storedAs(r.file) !== undefined)
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  if (found.length === 0) return;
  // the highest site seq older than each run's first line: per run, then carried forward
  const before = new Array<number>(found.length).fill(0);
  for (const file of siteFiles) {
    scanLines(file, 0, (line) => {
      const head = lineHead(line);
      if (!head) return false;
      const at = firstAfter(found, canonicalTs(head.ts));
      if (at < found.length && head.seq > before[at]!) before[at] = head.seq;
      return true;
    }, io);
  }
  const journalFile = LineFile.open(journal, io);
  try {
    let siteSeq = 0;
    found.forEach(({ run, file, first }, i) => {
      siteSeq = Math.max(siteSeq, before[i]!);
      const runSeq = lastSeq(storedAs(file)!, undefined, io);
      const common = { at: first, run_id: run.run_id, file: places.record(file), site_seq: siteSeq };
      journalFile.append(`${JSON.stringify({ event: 'run_start', ...common, run_seq: 0 })}\n`);
      journalFile.append(`${JSON.stringify({ event: 'run_stop', ...common, run_seq: runSeq })}\n`);
    });
    journalFile.syncNow();
  } finally {
    journalFile.close();
  }
  logger.warn(`the timeline was lost: rebuilt from ${found.length} run file(s) by the time of their first line ` +
    `(${found.map((r) => r.run.run_id).join(', ')})`);
}

/** The index of the first run whose first line is later than `ts` (found.length when none is). */
function firstAfter(found: readonly { first: string }[], ts: string): number {
  let lo = 0;
  let hi = found.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (found[mid]!.first > ts) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
