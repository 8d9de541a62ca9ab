import type { PathsObject } from 'openapi3-ts/oas31';
import { jsonAnswer, operation } from './responses.js';
import { ref } from './schemas.js';

// The current view.

/** Path items of /current and /current/{type}. */
export const currentPaths: PathsObject = {
  '/current': {
    get: operation({
      operationId: 'current', tags: ['current'],
      summary: 'The latest envelope of every type (the run\'s reading wins over the site\'s), types sorted.',
      parameters: [{
        name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' },
        description: 'The `ETag` of an earlier answer: 304 when nothing changed since.',
      }],
      answers: {
        ...jsonAnswer('The current view; the `ETag` header names this version of it.', ref('Current')),
        304: { description: 'Not modified since the `ETag` given in `If-None-Match`; no body.' },
      },
    }),
  },
  '/current/{type}': {
    get: operation({
      operationId: 'currentEvent', tags: ['current'], summary: 'The current envelope of one type.',
      parameters: [{
        name: 'type', in: 'path', required: true, schema: ref('EventType'),
        description: 'URL-encoded: `dome%20status`; a `/` in a type must be sent as `%2F`.',
      }],
      answers: jsonAnswer('The envelope.', ref('Envelope')),
      errors: ['NO_READING', 'NOT_FOUND'],
    }),
  },
};
