import type { ParameterObject, PathsObject, SchemaObject } from 'openapi3-ts/oas31';
import { jsonAnswer, operation } from './responses.js';

// Rollups: the answer of GET /history with `step`, its parameters, and POST /rollups/rebuild
// (docs/rollups.md).

const NUMBER = { type: 'number', description: 'As recorded (spelled as the reading had it).' } as const;

/** The `step`, `width` and `fields` parameters of GET /history. */
export const ROLLUP_PARAMETERS: ParameterObject[] = [
  { name: 'step', in: 'query', required: false, schema: { type: 'string', enum: ['auto', '1m', '15m', '1h', 'night'] },
    description: 'Rollup buckets of one type instead of events: `auto` picks the coarsest tier giving at least `width` buckets over from..to. Not with `run`, `limit`, `cursor`.' },
  { name: 'width', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 10000, default: 1000 }, description: 'With `step=auto` only.' },
  { name: 'fields', in: 'query', required: false, schema: { type: 'string', pattern: '^data(\\.[^.,]+)*(,data(\\.[^.,]+)*)*$' },
    description: 'With `step`: numeric data fields, comma-separated (`data.temp,data.wind.speed`); default every one the buckets hold.' },
];

const FIELD: SchemaObject = {
  type: 'object', required: ['first', 'last', 'min', 'max', 'count', 'mean', 'twmean', 'gap_s'], additionalProperties: false,
  properties: {
    first: NUMBER, last: NUMBER, min: NUMBER, max: NUMBER, count: { type: 'integer', minimum: 1 }, mean: { type: 'number' },
    twmean: { type: ['number', 'null'], description: 'Time-weighted over the time a fresh reading covered; null when none did.' },
    gap_s: { type: 'number', minimum: 0, description: 'Seconds of the bucket no fresh reading covered.' },
  },
};

/** The answer of GET /history with `step`. */
export const ROLLUP_ANSWER: SchemaObject = {
  type: 'object', required: ['type', 'step', 'from', 'to', 'fields', 'buckets'], additionalProperties: false,
  properties: {
    type: { type: 'string' }, step: { type: 'string', enum: ['1m', '15m', '1h', 'night'] }, from: { type: 'string' }, to: { type: 'string' },
    fields: { type: 'array', items: { type: 'string' } },
    buckets: {
      type: 'array', items: {
        type: 'object', required: ['start', 'end', 'fields'], additionalProperties: false,
        properties: {
          start: { type: 'string' }, end: { type: 'string' },
          fields: { type: 'object', additionalProperties: { oneOf: [FIELD, { type: 'null' }] }, description: 'null: no reading of the field in the bucket.' },
        },
      },
    },
  },
};

/** Path item of POST /rollups/rebuild. */
export const rollupPaths: PathsObject = {
  '/rollups/rebuild': {
    post: operation({
      operationId: 'rebuildRollups', tags: ['history'],
      summary: 'Make every rollup tier again from the recorded files; answers once the rebuilt tiers are in place (a rebuild under way is joined).',
      answers: jsonAnswer('Rebuilt; `late`: readings left out because their ts was before their type\'s last one.', {
        type: 'object', required: ['rebuilt', 'late'], additionalProperties: false,
        properties: { rebuilt: { const: true }, late: { type: 'integer', minimum: 0 } },
      }),
      errors: ['ROLLUPS_OFF', 'DISK_FULL', 'STORAGE_UNAVAILABLE'],
    }),
  },
};
