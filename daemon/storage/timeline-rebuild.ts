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
  const spans = spansOf(found, io);
  const journalFile = LineFile.open(journal, io);
  try {
    let siteSeq = 0;
    found.forEach(({ run, file, first }, i) => {
      siteSeq = Math.max(siteSeq, before[i]!);
      const common = { at: first, run_id: run.run_id, file: places.record(file), site_seq: siteSeq };
      journalFile.append(`${JSON.stringify({ event: 'run_start', ...common, run_seq: spans[i]!.from })}\n`);
      journalFile.append(`${JSON.stringify({ event: 'run_stop', ...common, run_seq: spans[i]!.to })}\n`);
    });
    journalFile.syncNow();
  } finally {
    journalFile.close();
  }
  logger.warn(`the timeline was lost: rebuilt from ${new Set(found.map((r) => r.file)).size} run file(s) by the time of their first line ` +
    `(${found.map((r) => r.run.run_id).join(', ')})`);
}

/**
 * The seqs of its file each run start holds, (from, to]: a file started more than once (a run id,
 * or another, started again on the same directory) is shared out, each start continuing after the
 * one before, up to the last seq runs.json noted at its stop, else the last seq of its file older
 * than the next start; the last start holds the rest of the file.
 */
function spansOf(found: readonly { run: KnownRun; file: string; first: string }[], io: StorageFs): { from: number; to: number }[] {
  const spans = found.map(() => ({ from: 0, to: 0 }));
  const last = new Map<string, number>(); // file -> the seq the previous start of it reached
  found.forEach(({ run, file }, i) => {
    const from = last.get(file) ?? 0;
    const next = found.findIndex((other, j) => j > i && other.file === file);
    const stored = storedAs(file)!;
    const to = next === -1 ? lastSeq(stored, undefined, io) : run.last_seq ?? seqBefore(stored, found[next]!.first, io);
    spans[i] = { from, to: Math.max(from, to) };
    last.set(file, Math.max(from, to));
  });
  return spans;
}

/** The highest seq of a file's lines stamped before `ts` (canonical). */
function seqBefore(file: string, ts: string, io: StorageFs): number {
  let seq = 0;
  scanLines(file, 0, (line) => {
    const head = lineHead(line);
    if (head && canonicalTs(head.ts) < ts) seq = Math.max(seq, head.seq);
    return head !== undefined;
  }, io);
  return seq;
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
