import type { PathsObject } from 'openapi3-ts/oas31';
import { BODY_ERRORS, jsonAnswer, operation } from './responses.js';
import { ref } from './schemas.js';

// Runs: the active run, starting one, stopping it.

/** Path items of /run, /run/start and /run/stop. */
export const runPaths: PathsObject = {
  '/run': {
    get: operation({
      operationId: 'getRun', tags: ['runs'], summary: 'The active run\'s record.',
      answers: jsonAnswer('The active run.', ref('RunRecord')),
      errors: ['NO_ACTIVE_RUN'],
    }),
  },
  '/run/start': {
    post: operation({
      operationId: 'startRun', tags: ['runs'],
      summary: 'Start a run: every event goes to the run\'s file until it stops.',
      description: 'The run id is `run_id`, else `meta.run_id`, else the next free number (`001`, `002`, ...). '
        + 'The run directory is `run_dir`, else `<site_dir>/<run_id>`; it is created.',
      requestBody: { required: false, content: { 'application/json': { schema: ref('RunStartRequest') } } },
      answers: jsonAnswer('The run record.', ref('RunRecord')),
      errors: [...BODY_ERRORS, 'RUN_ACTIVE', 'INVALID_RUN', 'DISK_FULL', 'STORAGE_UNAVAILABLE'],
    }),
  },
  '/run/stop': {
    post: operation({
      operationId: 'stopRun', tags: ['runs'], summary: 'Stop the active run.',
      answers: jsonAnswer('The record of the run that was active, with `stopped_at`.', ref('StoppedRunRecord')),
      errors: ['NO_ACTIVE_RUN', 'DISK_FULL', 'STORAGE_UNAVAILABLE'],
    }),
  },
};
