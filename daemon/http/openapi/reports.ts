import type { PathsObject, SchemaObject } from 'openapi3-ts/oas31';
import { jsonAnswer, operation } from './responses.js';

// The night report (docs/reports.md).

const TS = { type: 'string' } as const;
const NUMBER = { type: 'number' } as const;
const REPORT: SchemaObject = {
  type: 'object',
  required: ['night', 'run_id', 'zone', 'from', 'to', 'complete', 'until', 'seconds', 'events', 'first_event', 'last_event',
    'runs', 'safety', 'stale', 'alarms', 'gaps', 'counts', 'weather', 'states', 'damaged'],
  properties: {
    night: { type: ['string', 'null'] }, run_id: { type: ['string', 'null'] }, zone: { type: 'string' },
    from: TS, to: TS, complete: { type: 'boolean' }, until: TS, seconds: NUMBER, events: { type: 'integer' },
    first_event: { type: ['string', 'null'] }, last_event: { type: ['string', 'null'] },
    runs: { type: 'array' }, safety: { type: 'object' }, stale: { type: 'array' }, alarms: { type: 'object' },
    gaps: { type: 'object' }, counts: { type: 'object', additionalProperties: { type: 'integer' } },
    weather: { type: 'object' }, states: { type: 'array' }, damaged: { type: 'array' },
  },
};

/** Path items of /reports/night and /reports/night/{day}. */
export const reportPaths: PathsObject = {
  '/reports/night': {
    get: operation({
      operationId: 'runReport', tags: ['history'],
      summary: 'The night report of one run: from its first event to its last (to now while it is active).',
      parameters: [{ name: 'run', in: 'query', required: true, schema: { type: 'string' }, description: 'The run id.' }],
      answers: jsonAnswer('The report (docs/reports.md).', REPORT),
      errors: ['INVALID_QUERY'],
    }),
  },
  '/reports/night/{day}': {
    get: operation({
      operationId: 'nightReport', tags: ['history'],
      summary: 'The night report of a site day: local noon to the next local noon.',
      description: 'Span, runs, time safe and unsafe with reasons, stale time per type, alarms, gaps, counts per type, weather min/mean/max, time per POCS state. No query parameter is taken.',
      parameters: [{ name: 'day', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]{8}$' }, description: 'The site day, YYYYMMDD.' }],
      answers: jsonAnswer('The report (docs/reports.md).', REPORT),
      errors: ['INVALID_NIGHT', 'INVALID_QUERY'],
    }),
  },
};
