import type { PathsObject } from 'openapi3-ts/oas31';
import { jsonAnswer, operation } from './responses.js';
import { ref } from './schemas.js';

// The current view.

/** Path items of /current and /current/{type}. */
export const currentPaths: PathsObject = {
  '/current': {
    get: operation({
      operationId: 'current', tags: ['current'],
      summary: 'The latest envelope of every type, types sorted: exactly the original service\'s `{"current": {...}}`; how fresh each is when asked (docs/http-api.md).',
      description: 'Query parameters other than `type`, `stale` and `freshness` are ignored (the original clients send `stream`).',
      parameters: [{
        name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' },
        description: 'The `ETag` of an earlier answer: 304 when no reading changed (and, for an answer with freshness, no type turned stale or fresh) since.',
      }, {
        name: 'type', in: 'query', required: false, schema: { type: 'string' }, explode: true,
        description: 'Only these types: names separated by commas, or the parameter repeated; a comma inside a name is sent as `%2C`.',
      }, {
        name: 'stale', in: 'query', required: false, schema: { enum: ['true', 'false'] },
        description: 'Only the stale types (`true`), or only the fresh ones (`false`); brings `freshness` along unless `freshness=false` is given.',
      }, {
        name: 'freshness', in: 'query', required: false, schema: { enum: ['true', 'false'] },
        description: '`true`: `freshness` beside `current`. Default `false`: the view alone, `{"current": {...}}`, the original service\'s body.',
      }],
      answers: {
        ...jsonAnswer('The current view; the `ETag` header names this version of it.', ref('Current')),
        304: { description: 'Not modified since the `ETag` given in `If-None-Match`; no body.' },
      },
      errors: ['INVALID_QUERY'],
    }),
  },
  '/current/{type}': {
    get: operation({
      operationId: 'currentEvent', tags: ['current'], summary: 'The current envelope of one type.',
      parameters: [{
        name: 'type', in: 'path', required: true, schema: ref('EventType'),
        description: 'URL-encoded: `dome%20status`; a `/` in a type must be sent as `%2F`.',
      }],
      answers: {
        200: {
          description: 'The envelope, exactly as stored; its freshness in headers.',
          headers: {
            'X-Meridian-Age': { schema: { type: 'number' }, description: 'Seconds since the reading\'s `ts` on the daemon\'s clock.' },
            'X-Meridian-Max-Age': { schema: { type: 'number' }, description: 'The type\'s limit in seconds; absent when it has none.' },
            'X-Meridian-Max-Age-From': {
              schema: { enum: ['rule', 'reading', 'learned'] }, description: 'Where the limit comes from (as `max_age_from` of `/current?freshness=true`); absent when there is none.',
            },
            'X-Meridian-Stale': { schema: { enum: ['true', 'false'] }, description: 'Whether the reading is older than its limit.' },
          },
          content: { 'application/json': { schema: ref('Envelope') } },
        },
      },
      errors: ['NO_READING', 'NOT_FOUND'],
    }),
  },
};
