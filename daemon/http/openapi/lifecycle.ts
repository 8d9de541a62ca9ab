import type { PathsObject } from 'openapi3-ts/oas31';
import { jsonAnswer, operation } from './responses.js';
import { ref } from './schemas.js';

// The daemon itself: liveness, readiness, status, shutdown.

/** Path items of /health, /ready, /status and /shutdown. */
export const lifecyclePaths: PathsObject = {
  '/health': {
    get: operation({
      operationId: 'health', tags: ['daemon'], summary: 'Liveness: the process answers.', open: true,
      answers: jsonAnswer('Always `{"ok":true}`.', ref('Health')),
    }),
  },
  '/ready': {
    get: operation({
      operationId: 'ready', tags: ['daemon'], summary: 'Readiness: the store is open and the daemon serves.', open: true,
      answers: jsonAnswer('Ready, whether a run is active, and the package version.', ref('Ready')),
    }),
  },
  '/status': {
    get: operation({
      operationId: 'status', tags: ['daemon'], summary: 'Who is answering, since when, and what it holds.',
      answers: jsonAnswer('The daemon\'s version, pid, start time, address, active run and number of types.', ref('Status')),
    }),
  },
  '/shutdown': {
    post: operation({
      operationId: 'shutdown', tags: ['daemon'],
      summary: 'Stop the daemon cleanly once this answer is sent.',
      description: 'Accepted from loopback clients, or from anyone with the token (403 `FORBIDDEN` otherwise).',
      answers: jsonAnswer('The daemon is shutting down; the connection is closed after the answer.', ref('Shutdown')),
    }),
  },
};
