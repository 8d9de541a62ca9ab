import type { PathsObject } from 'openapi3-ts/oas31';
import { jsonAnswer, operation } from './responses.js';
import { ref } from './schemas.js';

// The safety verdict (docs/safety.md), and the same verdict in INDI's forms (docs/integrations.md).

/** Path items of /safety, /safety/indi and /safety/watcher. */
export const safetyPaths: PathsObject = {
  '/safety': {
    get: operation({
      operationId: 'safety', tags: ['safety'],
      summary: 'Whether it is safe (to open): the verdict of the `[safety]` section of the config file, its reasons and its inputs.',
      description: 'Always 200: unsafe (with the reason) when the daemon has no `[safety]` section, when a required type is missing or stale, when a rule is raised or cannot be judged, and until the inputs have said safe for `safe_for`. The query string is ignored.',
      answers: jsonAnswer('The verdict now.', ref('Safety')),
    }),
  },
  '/safety/indi': {
    get: operation({
      operationId: 'safetyIndi', tags: ['safety'],
      summary: 'The verdict as the JSON INDI\'s `indi_weather_safety_proxy` reads: `{"roof_status":{"open_ok":0|1,"reasons":"..."}}`.',
      description: '`open_ok` is 1 only when the verdict is safe; `reasons` are the verdict\'s, joined by "; " (empty when safe). Always 200; the query string is ignored.',
      answers: jsonAnswer('The verdict in the proxy\'s form.', {
        type: 'object', required: ['roof_status'], additionalProperties: false,
        properties: {
          roof_status: {
            type: 'object', required: ['open_ok', 'reasons'], additionalProperties: false,
            properties: { open_ok: { type: 'integer', enum: [0, 1] }, reasons: { type: 'string' } },
          },
        },
      }),
    }),
  },
  '/safety/watcher': {
    get: operation({
      operationId: 'safetyWatcher', tags: ['safety'],
      summary: 'The verdict and the mapped conditions as the `key=value` lines INDI\'s `indi_watcher_weather` reads.',
      description: '`forecast=0` only when the verdict is safe and every value given is there and fresh, else `forecast=2`; then `precip`, `temperature`, `wind`, `gust` (km/h), `clouds`, `humidity`, `pressure` for each `[conditions]` property mapped and known, `safe=0|1`, and `reasons=...` when unsafe (docs/integrations.md). Always 200; the query string is ignored.',
      answers: { 200: { description: 'One `key=value` line each, `\\n`-terminated.', content: { 'text/plain': { schema: { type: 'string' } } } } },
    }),
  },
};
