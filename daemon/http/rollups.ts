import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';

// Rollups: rebuilding every tier from the recorded files (docs/rollups.md). The buckets
// themselves are read through GET /history?step= (history-rollup.ts).

/** Handler of POST /rollups/rebuild: answers once the rebuilt tiers are in place. */
export function rollupHandlers({ rollups }: AppDeps): Record<'rebuild', Handler> {
  return {
    rebuild: async (_req, res) => {
      await rollups.rebuild();
      sendJson(res, 200, `{"rebuilt":true,"late":${rollups.late()}}`);
    },
  };
}
