import { MeridianError } from '../../lib/errors.js';
import type { Rollups } from '../rollup/rollups.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';

// Rollups: rebuilding every tier from the recorded files (docs/rollups.md). The buckets
// themselves are read through GET /history?step= (history-rollup.ts).

/** Handler of POST /rollups/rebuild: answers once the rebuilt tiers are in place. */
export function rollupHandlers({ rollups }: AppDeps): Record<'rebuild', Handler> {
  return {
    rebuild: async (_req, res) => {
      const kept = rollupsOn(rollups);
      await kept.rebuild();
      sendJson(res, 200, `{"rebuilt":true,"late":${kept.late()}}`);
    },
  };
}

/** The daemon's rollups, or 409 ROLLUPS_OFF when it runs with `--rollups off`. */
export function rollupsOn(rollups: Rollups | undefined): Rollups {
  if (rollups === undefined) throw new MeridianError('ROLLUPS_OFF', 'This daemon runs with --rollups off: it keeps no rollups (start it with --rollups on).');
  return rollups;
}
