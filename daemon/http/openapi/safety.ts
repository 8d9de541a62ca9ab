import type { PathsObject } from 'openapi3-ts/oas31';
import { jsonAnswer, operation } from './responses.js';
import { ref } from './schemas.js';

// The safety verdict (docs/safety.md).

/** Path item of /safety. */
export const safetyPaths: PathsObject = {
  '/safety': {
    get: operation({
      operationId: 'safety', tags: ['safety'],
      summary: 'Whether it is safe (to open): the verdict of the `[safety]` section of the config file, its reasons and its inputs.',
      description: 'Always 200: unsafe (with the reason) when the daemon has no `[safety]` section, when a required type is missing or stale, when a rule is raised or cannot be judged, and until the inputs have said safe for `safe_for`. The query string is ignored.',
      answers: jsonAnswer('The verdict now.', ref('Safety')),
    }),
  },
};
