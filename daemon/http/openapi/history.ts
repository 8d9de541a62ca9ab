import type { ParameterObject, PathsObject } from 'openapi3-ts/oas31';
import { jsonAnswer, operation } from './responses.js';
import { ROLLUP_ANSWER, ROLLUP_PARAMETERS } from './rollups.js';
import { ref } from './schemas.js';

// Reading the recorded log: history pages and the live stream (docs/http-api.md).

const TYPES: ParameterObject = {
  name: 'type', in: 'query', required: false, schema: { type: 'string' },
  description: 'Event types, comma-separated (a comma inside a type as `%2C`); may repeat. Default: every type.',
};
const CURSOR = {
  type: 'string', pattern: '^(site:[0-9]+|run:[A-Za-z0-9._-]{1,128}:[0-9]+(@[1-9][0-9]{0,8})?)$',
  description: '`site:<seq>` or `run:<run id>:<seq>` (`@<n>` after the seq names the run\'s segment where its seqs repeat: docs/http-api.md).',
} as const;
const TIME = {
  type: 'string',
  description: 'ISO-8601 with `Z` or an offset, `now`, or relative to the daemon\'s clock: `-90s`, `-15m`, `-2h`, `-1d`, `-1w`.',
} as const;

/** Path items of /history and /stream. */
export const historyPaths: PathsObject = {
  '/history': {
    get: operation({
      operationId: 'history', tags: ['history'],
      summary: 'Recorded events in record order (across day files, runs and restarts), a page at a time.',
      description: 'Any other query parameter is refused (422 `INVALID_QUERY`).',
      parameters: [
        TYPES,
        { name: 'from', in: 'query', required: false, schema: TIME, description: 'Included; compared with the envelope\'s `ts`.' },
        { name: 'to', in: 'query', required: false, schema: TIME, description: 'Excluded.' },
        { name: 'run', in: 'query', required: false, schema: { type: 'string' }, description: 'A run id, or `site`: only that run\'s events, or only the site\'s.' },
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 10000, default: 1000 } },
        { name: 'cursor', in: 'query', required: false, schema: CURSOR, description: 'Start after this event (a page\'s `next_cursor`).' },
        ...ROLLUP_PARAMETERS,
      ],
      answers: jsonAnswer('A page: the envelopes as stored, and the cursor of the next page (null: nothing more now); with `step`: one type\'s rollup buckets.', {
        oneOf: [{
          type: 'object', required: ['events', 'next_cursor'], additionalProperties: false,
          properties: { events: { type: 'array', items: ref('Envelope') }, next_cursor: { oneOf: [CURSOR, { type: 'null' }] }, damaged: ref('DamagedFiles') },
        }, ROLLUP_ANSWER],
      }),
      errors: ['INVALID_QUERY', 'INVALID_CURSOR', 'ROLLUPS_OFF'],
    }),
  },
  '/stream': {
    get: operation({
      operationId: 'stream', tags: ['history'],
      summary: 'Server-Sent Events: the current view (or a replay after a cursor), a `live` marker, then every event as it is recorded.',
      description: 'Events `snapshot`, `replay`, `live`, `event`, `held`, `dropped`; ids are cursors; with `alarms=true` also `alarm` (no id). docs/http-api.md describes each. Any other query parameter is refused (422 `INVALID_QUERY`, as JSON before the stream).',
      parameters: [
        TYPES,
        { name: 'since', in: 'query', required: false, schema: CURSOR, description: 'Resume after this cursor (replayed from the files).' },
        { name: 'Last-Event-ID', in: 'header', required: false, schema: CURSOR, description: 'As `since`; wins over it.' },
        { name: 'alarms', in: 'query', required: false, schema: { enum: ['true', 'false'], default: 'false' }, description: 'Also `alarm` events: every alarm before `live`, then each change (docs/alarms.md).' },
      ],
      answers: { 200: { description: 'The event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
      // STREAM_OVERFLOW is no HTTP answer but the `dropped` event's data; listed here, by its status
      errors: ['INVALID_QUERY', 'INVALID_CURSOR', 'STORAGE_UNAVAILABLE', 'STREAM_OVERFLOW'],
    }),
  },
};
