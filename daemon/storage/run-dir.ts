import fs from 'node:fs';
import path from 'node:path';
import { makeDirectory, removeCreated } from '../../lib/directories.js';
import { MeridianError } from '../../lib/errors.js';
import { isNoSpace, writeFailure } from './disk-space.js';
import type { Logger } from '../../lib/log.js';
import { onlyCompressed } from './restore-plain.js';
import { prepareRunFile } from './recover.js';
import { checkCreatedRunDir, type RunDirPlace } from './run-resolve.js';
import { errorCode } from './state-files.js';
import type { StorageFs } from './storage-fs.js';
import { APPEND_FLAGS, openRegularSync } from '../ndjson/regular.js';

// A run's directory and file: made ready before a start is recorded (and taken back when
// recording it fails).

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
    // a stopped run's file compressed by --compress-after was decompressed before (store.startRun):
    // one compressed in between is refused, never started afresh beside its .gz
    if (onlyCompressed(file, io)) throw new MeridianError('INVALID_RUN', `Cannot use ${place.given} (its file was compressed meanwhile; start the run again).`);
    fileExisted = fs.existsSync(file);
    const fd = openRegularSync(file, io, APPEND_FLAGS);
    io.closeSync(fd);
    const seq = prepareRunFile(file, logger);
    return { file, seq, size: fs.statSync(file).size, undo };
  } catch (error) {
    undo();
    if (error instanceof MeridianError) throw error;
    if (isNoSpace(error)) throw writeFailure(error, `Could not prepare ${place.given} for the run (ENOSPC); no run was started.`);
    throw new MeridianError('INVALID_RUN', `Cannot use ${place.given} (${errorCode(error)}).`, { cause: error });
  }
}



/** Why a run directory is unusable, short: the errno code (`ENOENT`), else the refusal's sentence. */
export function unusableReason(error: unknown): string {
  const cause = error instanceof MeridianError ? error.cause : error;
  return cause === undefined ? (error as Error).message : errorCode(cause);
}
