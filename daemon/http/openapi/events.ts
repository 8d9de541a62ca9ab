import type { PathsObject } from 'openapi3-ts/oas31';
import { MAX_BATCH_EVENTS } from '../batch.js';
import { BODY_ERRORS, jsonAnswer, operation } from './responses.js';
import { ref } from './schemas.js';

// Recording events, one at a time or in batches.

/** Path items of /event and /events. */
export const eventPaths: PathsObject = {
  '/event': {
    post: operation({
      operationId: 'postEvent', tags: ['events'],
      summary: 'Record one event; answers its envelope once the line is written (and synced with --fsync always).',
      requestBody: { required: true, content: { 'application/json': { schema: ref('EventRequest') } } },
      answers: jsonAnswer('The envelope, byte for byte the line stored in the file.', ref('Envelope')),
      errors: [...BODY_ERRORS, 'INVALID_MAX_AGE', 'DISK_FULL', 'STORAGE_UNAVAILABLE', 'NOT_SYNCED'],
    }),
  },
  '/events': {
    post: operation({
      operationId: 'postEvents', tags: ['events'],
      summary: 'Record a batch of events: seqs in batch order, one write (and with --fsync always one sync).',
      description: `Every event is validated first. By default the batch is atomic: any invalid event and nothing is recorded (422 \`INVALID_BATCH\`, each failure by index). With \`partial=true\` the valid events are recorded and the invalid ones reported (422 \`BATCH_PARTLY_RECORDED\`: never a 2xx, so a partial failure is not taken for success). At most ${MAX_BATCH_EVENTS} events, and --max-body bytes, per request. Query parameters other than \`partial\` are ignored.`,
      parameters: [{
        name: 'partial', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false', '1', '0', ''] },
        description: '`true`: record the valid events even when others are invalid. Default `false` (atomic).',
      }],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { type: 'array', items: ref('EventRequest'), minItems: 1, maxItems: MAX_BATCH_EVENTS } },
          'application/x-ndjson': { schema: { type: 'string', description: 'One EventRequest object per line; blank lines are skipped.' } },
        },
      },
      answers: jsonAnswer('Every event was recorded, with seqs first_seq..last_seq in batch order.', ref('BatchRecorded')),
      errors: [...BODY_ERRORS, 'BATCH_TOO_LARGE', 'INVALID_QUERY', 'INVALID_BATCH', 'BATCH_PARTLY_RECORDED', 'DISK_FULL', 'STORAGE_UNAVAILABLE', 'NOT_SYNCED'],
      errorBodies: { INVALID_BATCH: ref('InvalidBatch'), BATCH_PARTLY_RECORDED: ref('BatchPartlyRecorded') },
    }),
  },
};
