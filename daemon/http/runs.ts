import { MeridianError } from '../../lib/errors.js';
import { readBodyText } from './body.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';
import { parseRunStartBody } from './validate.js';

// Runs: the active run's record, starting one, stopping it.

/** Handlers of GET /run, POST /run/start and POST /run/stop. */
export function runHandlers({ store, config }: AppDeps): Record<'get' | 'start' | 'stop', Handler> {
  return {
    get: (_req, res) => {
      const run = store.activeRunJson();
      const suspended = store.suspendedRun();
      if (run === undefined && suspended) {
        throw new MeridianError('NO_ACTIVE_RUN', `No run is active: run ${suspended.record.run_id} is suspended because its ` +
          `run_dir ${suspended.record.run_dir} is not usable (${suspended.reason}); events go to the site file. POST /run/stop ends it.`);
      }
      if (run === undefined) throw new MeridianError('NO_ACTIVE_RUN', 'No run is active.');
      sendJson(res, 200, run);
    },
    start: async (req, res) => {
      const request = parseRunStartBody(await readBodyText(req, config.maxBody));
      sendJson(res, 200, await store.startRun(request));
    },
    stop: (_req, res) => sendJson(res, 200, store.stopRun()),
  };
}
