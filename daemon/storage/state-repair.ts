import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../lib/log.js';
import { firstEnvelope, maxSeq } from '../ndjson/ends.js';
import { storedAs } from '../ndjson/names.js';
import { scanFile } from '../ndjson/scan.js';
import type { Reading } from './current-view.js';
import { readingOfLine } from './envelope-line.js';
import { discoverRuns } from './run-files.js';
import { readKnownRuns, type KnownRun } from './state-files.js';
import type { SitePlaces } from './site-places.js';
import type { StorageFs } from './storage-fs.js';
import { timelineDamage, UNKNOWN_END, type Segment } from './timeline.js';

// Start-up over damaged bookkeeping under `.meridian/`: a damaged file is named in the log and
// treated like a lost one, so no recorded event is hidden and no seq or derived run id repeats.

/** A state file found damaged at start-up, and what was done instead (for /status `damaged`). */
export interface StateDamage {
  file: string;
  reason: string;
}

/**
 * A damaged timeline (empty, or a line that is not a journal line) is set aside as
 * `timeline.ndjson.damaged-<ms>` so that it is rebuilt from the run files like a lost one;
 * returns the damage, undefined when it is sound.
 */
export function setDamagedTimelineAside(file: string, now: number, io: StorageFs, logger: Logger): StateDamage | undefined {
  const reason = timelineDamage(file, io);
  if (reason === undefined) return undefined;
  const aside = `${file}.damaged-${Math.floor(now)}`;
  try {
    io.renameSync(file, aside);
  } catch (error) {
    const done = `it could not be set aside (${(error as NodeJS.ErrnoException).code}); runs may be missing from /history`;
    logger.error(`the timeline ${file} is damaged (${reason}) and ${done}`);
    return { file, reason: `${reason}; ${done}` };
  }
  const done = `set aside as ${path.basename(aside)} and rebuilt from the run files`;
  logger.warn(`the timeline ${file} is damaged (${reason}): ${done}`);
  return { file, reason: `${reason}: ${done}` };
}

/**
 * The runs of a site directory: `runs.json`'s list, or when it is damaged (or missing) the
 * run files found on disk, so a derived id never repeats one they hold.
 */
export function knownRunsOf(siteDir: string, file: string, places: SitePlaces, logger: Logger, io: StorageFs):
  { runs: KnownRun[]; damage?: StateDamage } {
  const exists = fs.existsSync(file);
  const listed = exists ? readKnownRuns(file, (m) => logger.warn(m), places) : undefined;
  if (listed) return { runs: listed };
  const runs = discoverRuns(siteDir, io);
  return exists ? { runs, damage: { file, reason: 'not a run list: the runs are found again from the run files and the timeline' } } : { runs };
}

/**
 * The runs with the seqs the timeline journaled: a run it names that the list lacks is added
 * (its id is taken), and each run's last seq is at least the highest the timeline recorded for
 * its file (`orphan`: the open run closed at start-up, with the seq it reached), so a run
 * restarted on its directory never repeats a seq.
 */
export function withTimelineFloors(runs: KnownRun[], segments: readonly Segment[], orphan: { file: string; seq: number } | undefined,
  io: StorageFs): KnownRun[] {
  const top = new Map<string, { runId: string; file: string; seq: number }>();
  for (const s of segments) {
    if (s.stream === 'site' || s.file === undefined) continue;
    // an unknown end (a run that could not resume after a crash) is no seq: its start's floor counts, the run start reads its file
    const seq = Math.max(s.after, Number.isFinite(s.to) && s.to !== UNKNOWN_END ? s.to : 0, orphan?.file === s.file ? orphan.seq : 0);
    const dir = path.dirname(s.file);
    top.set(dir, { runId: s.stream, file: s.file, seq: Math.max(seq, top.get(dir)?.seq ?? 0) });
  }
  const out = runs.map((run) => ({ ...run }));
  for (const [dir, { runId, file, seq }] of top) {
    const last = out.filter((run) => run.run_dir === dir).at(-1);
    // started_at: its first line's time (a rebuilt timeline places it by that), '' when it has none
    const startedAt = () => {
      const stored = storedAs(file);
      try {
        return (stored && firstEnvelope(stored, io)?.ts) ?? '';
      } catch {
        return '';
      }
    };
    if (!last && !out.some((run) => run.run_id === runId)) out.push({ run_id: runId, run_dir: dir, started_at: startedAt(), last_seq: seq });
    else if (last && seq > (last.last_seq ?? 0)) last.last_seq = seq;
  }
  return out;
}

/** The open run of the timeline that no active run record resumes (closed at start-up), with what it recorded. */
export interface OrphanRun {
  runId: string;
  file: string;
  /** The highest seq it took: its file's, its ephemeral readings', the snapshot's mark of it. */
  seq: number;
  /** Its ephemeral readings after the snapshot (their lines are only in the side file). */
  ephemeral: Reading[];
}

/**
 * The timeline's open run when `activeRunId` (the active run record's, if any) is not it:
 * `active-run.json` was lost, and the run is closed at start-up. `markSeq`: the snapshot's
 * seq of that run file (0 when none), which covers ephemeral readings the side file dropped.
 */
export function orphanRunOf(segments: readonly Segment[], active: { runId: string; file: string } | undefined, markSeq: (file: string) => number,
  ephemeralFile: string, io: StorageFs): OrphanRun | undefined {
  const open = segments.at(-1);
  if (!open?.file || Number.isFinite(open.to) || (active?.runId === open.stream && active.file === open.file)) return undefined;
  let fileSeq = 0;
  try {
    fileSeq = maxSeq(open.file, io).seq;
  } catch { /* not there: the floors below */ }
  const mark = markSeq(open.file);
  const after = Math.max(open.after, mark);
  const ephemeral = new Map<string, Reading>();
  let seq = Math.max(open.after, mark, fileSeq);
  if (fs.existsSync(ephemeralFile)) {
    scanFile(ephemeralFile, 0, (env, line) => {
      if (env.meta?.run_id !== open.stream || env.seq <= after) return;
      seq = Math.max(seq, env.seq);
      if (env.seq > (ephemeral.get(env.type)?.seq ?? 0)) ephemeral.set(env.type, readingOfLine(env, line));
    }, io);
  }
  return { runId: open.stream, file: open.file, seq, ephemeral: [...ephemeral.values()] };
}

/**
 * The logger start-up reads the side state files with (the batch journal, the held seqs, the
 * ephemeral readings): a warning or error naming one of `files` is its damage too, kept in
 * `found` for /status (each file once, with the first sentence said of it).
 */
export function notingDamage(logger: Logger, files: readonly string[], found: StateDamage[]): Logger {
  const note = (message: string) => {
    const file = files.find((f) => message.includes(f));
    if (file !== undefined && !found.some((d) => d.file === file)) found.push({ file, reason: message });
  };
  return {
    debug: (message) => logger.debug(message),
    info: (message) => logger.info(message),
    warn: (message) => { note(message); logger.warn(message); },
    error: (message, error) => { note(message); logger.error(message, error); },
  };
}
