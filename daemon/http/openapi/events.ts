import type { PathsObject } from 'openapi3-ts/oas31';
import { BODY_ERRORS, jsonAnswer, operation } from './responses.js';
import { ref } from './schemas.js';

// Recording events.

/** Path items of /event. */
export const eventPaths: PathsObject = {
  '/event': {
    post: operation({
      operationId: 'postEvent', tags: ['events'],
      summary: 'Record one event; answers its envelope once the line is written (and synced with --fsync always).',
      requestBody: { required: true, content: { 'application/json': { schema: ref('EventRequest') } } },
      answers: jsonAnswer('The envelope, byte for byte the line stored in the file.', ref('Envelope')),
      errors: [...BODY_ERRORS, 'STORAGE_UNAVAILABLE'],
    }),
  },
};
