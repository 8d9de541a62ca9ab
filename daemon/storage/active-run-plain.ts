import path from 'node:path';
import type { Logger } from '../../lib/log.js';
import { RUN_FILE } from '../ndjson/names.js';
import { onlyCompressed, restorePlain } from './restore-plain.js';
import { SitePlaces } from './site-places.js';
import { errorCode, readActiveRun, statePaths } from './state-files.js';
import type { StorageFs } from './storage-fs.js';

// Before start-up replays the files: the active run's file found only as its `.gz` (gzipped
// by hand or by another tool while the daemon was down) is made plain again, so the run
// resumes with its events instead of being suspended as if its file were gone.

/**
 * Decompress the active run's `<run_dir>/telemetry.ndjson.gz` back to its plain file when the
 * plain one is not there (streamed, off the event loop: restore-plain.ts). A `.gz` that does
 * not decompress whole is left as it is (logged): the run is then suspended by the replay.
 */
export async function plainActiveRunFile(siteDir: string, logger: Logger, io: StorageFs): Promise<void> {
  // the records are read again (and their damage reported) by the replay that follows
  const state = readActiveRun(statePaths(siteDir).activeRun, () => undefined, SitePlaces.fromMark(siteDir, undefined));
  if (!state) return;
  const { run_id: runId, run_dir: runDir } = state.record;
  const file = path.join(runDir, RUN_FILE);
  try {
    if (!onlyCompressed(file, io)) return;
    await restorePlain(file, io);
    logger.warn(`${file} was found only compressed: decompressed so that run ${runId} resumes`);
  } catch (error) {
    logger.error(`${file}.gz of the active run ${runId} could not be decompressed (${errorCode(error)}); it is left as it is`);
  }
}
