import { MeridianError } from '../../lib/errors.js';
import type { Logger } from '../../lib/log.js';
import { RebuildStopped } from '../rollup/rebuild.js';
import type { Rollups } from '../rollup/rollups.js';
import { writeFailure } from '../storage/disk-space.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';

// Rollups: rebuilding every tier from the recorded files (docs/rollups.md). The buckets
// themselves are read through GET /history?step= (history-rollup.ts).

/** Handler of POST /rollups/rebuild: answers once the rebuilt tiers are in place. */
export function rollupHandlers({ rollups, logger }: AppDeps): Record<'rebuild', Handler> {
  return {
    rebuild: async (_req, res) => {
      const kept = rollupsOn(rollups);
      try {
        await kept.rebuild();
      } catch (error) {
        throw rebuildFailure(error, logger);
      }
      sendJson(res, 200, `{"rebuilt":true,"late":${kept.late()}}`);
    },
  };
}

/** The daemon's rollups, or 409 ROLLUPS_OFF when it runs with `--rollups off`. */
export function rollupsOn(rollups: Rollups | undefined): Rollups {
  if (rollups === undefined) throw new MeridianError('ROLLUPS_OFF', 'This daemon runs with --rollups off: it keeps no rollups (start it with --rollups on).');
  return rollups;
}

/**
 * A rebuild that failed as its answer: a full disk 503 DISK_FULL, another failed read or write
 * (an errno code) 503 STORAGE_UNAVAILABLE, a stop 503 STORAGE_UNAVAILABLE; each logged as one
 * line. The old tiers stay in place either way. Anything else is a fault of ours (500).
 */
export function rebuildFailure(error: unknown, logger: Logger): unknown {
  if (error instanceof MeridianError) return error;
  if (error instanceof RebuildStopped) return new MeridianError('STORAGE_UNAVAILABLE', 'The daemon is shutting down: the rollups were not rebuilt; the old tiers are kept.');
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return error;
  logger.error(`POST /rollups/rebuild failed (${code}); the old rollup tiers still answer`);
  return writeFailure(error, `The rollups were not rebuilt (${code}); the old tiers still answer and the partial rebuild was removed.`);
}
