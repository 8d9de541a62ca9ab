import fs from 'node:fs';
import path from 'node:path';
import { makeDirectory, removeCreated } from '../../lib/directories.js';
import { MeridianError } from '../../lib/errors.js';
import type { Logger } from '../../lib/log.js';
import { ensurePlain } from './compressed.js';
import type { Reading } from './current-view.js';
import { prepareRunFile, replayTarget } from './recover.js';
import { checkCreatedRunDir, resolveRunDir, type RunDirPlace } from './run-resolve.js';
import { errorCode, type ActiveRunState, type SnapshotFile, type TargetMark } from './state-files.js';
import type { StorageFs } from './storage-fs.js';

// A run's directory and file: made ready before a start is recorded (and taken back when
// recording it fails), found again at start-up.

/** A run file ready to be written: its last seq and length, and how to undo its preparation. */
export interface PreparedRunFile {
  file: string;
  seq: number;
  size: number;
  /** Remove what the preparation created (the file if new, the directories made for it). */
  undo(): void;
}

/**
 * Create the run directory (and missing parents), check it is still where it was judged to
 * be, open (creating) its run file and cut a torn tail. INVALID_RUN when any step fails,
 * with what was created removed again.
 */
export function prepareRunDir(siteDir: string, place: RunDirPlace, runFile: string, logger: Logger, io: StorageFs): PreparedRunFile {
  const file = path.join(place.dir, runFile);
  let created: string[] = [];
  let fileExisted = true;
  const undo = () => {
    if (!fileExisted) {
      try { io.rmSync(file, { force: true }); } catch { /* removeCreated then leaves its directory */ }
    }
    removeCreated(created, io);
  };
  try {
    created = makeDirectory(place.dir, io);
    checkCreatedRunDir(siteDir, place, runFile);
    // a stopped run's file compressed by --compress-after: decompressed back, its seq continues
    if (ensurePlain(file)) logger.info(`${file}: decompressed to continue the run`);
    fileExisted = fs.existsSync(file);
    const fd = io.openSync(file, 'a');
    io.closeSync(fd);
    const seq = prepareRunFile(file, logger);
    return { file, seq, size: fs.statSync(file).size, undo };
  } catch (error) {
    undo();
    if (error instanceof MeridianError) throw error;
    throw new MeridianError('INVALID_RUN', `Cannot use ${place.given} (${errorCode(error)}).`, { cause: error });
  }
}

/** The active run's file found again at start-up: its last seq and the run's latest readings. */
export interface ReopenedRunFile {
  file: string;
  seq: number;
  readings: Iterable<Reading>;
}

/**
 * At start-up, find the active run's file again, cut a torn tail, and replay it from the
 * snapshot's mark when that belongs to this run (else from where the run started). Throws
 * when the file is missing or unusable: it is never created anew, as its seqs would repeat
 * those of the missing one (a disk not mounted, a directory removed).
 */
export function reopenRunFile(siteDir: string, runFile: string, state: ActiveRunState, mark: SnapshotFile['run'],
  held: Set<number>, logger: Logger): ReopenedRunFile {
  const { record } = state;
  resolveRunDir(siteDir, record.run_id, record.run_dir); // still not a name the daemon keeps
  const file = path.join(record.run_dir, runFile);
  if (!fs.statSync(file).isFile()) throw Object.assign(new Error(`${file} is not a file`), { code: 'EISDIR' });
  const seq = prepareRunFile(file, logger);
  const usable = mark && mark.run_id === record.run_id && mark.started_at === record.started_at && mark.file === file;
  const startMark: TargetMark = usable ? mark : { file, offset: state.start_offset, seq: 0, current: [] };
  const replay = replayTarget([file], startMark, held, logger, `run ${record.run_id}`);
  return { file, seq: Math.max(seq, replay.seq), readings: replay.readings.values() };
}

/** Why a run directory is unusable, short: the errno code (`ENOENT`), else the refusal's sentence. */
export function unusableReason(error: unknown): string {
  const cause = error instanceof MeridianError ? error.cause : error;
  return cause === undefined ? (error as Error).message : errorCode(cause);
}
