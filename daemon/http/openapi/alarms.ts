import type { PathsObject, SchemaObject } from 'openapi3-ts/oas31';
import { ALARM_SEVERITIES, ALARM_STATES } from '../../../lib/wire.js';
import { BODY_ERRORS, jsonAnswer, operation } from './responses.js';
import { TS_PATTERN } from './schemas.js';

// Alarms: the list, one alarm, acknowledging, shelving and unshelving (docs/alarms.md).

const ts: SchemaObject = { type: 'string', pattern: TS_PATTERN };
const tsOrNull: SchemaObject = { oneOf: [ts, { type: 'null' }] };
const textOrNull: SchemaObject = { type: ['string', 'null'] };
const by: SchemaObject = { type: 'string', minLength: 1, maxLength: 64, description: 'Who does it (no control characters).' };

/** An alarm as GET /alarms answers it. */
export const ALARM_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'severity', 'state', 'active', 'since', 'raised_at', 'value', 'message', 'acked_by', 'acked_at', 'shelved_until', 'escalated_at', 'unknown'],
  properties: {
    id: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' },
    severity: { enum: [...ALARM_SEVERITIES] },
    state: { enum: [...ALARM_STATES] },
    active: { type: 'boolean', description: 'Whether its condition holds now.' },
    since: { ...ts, description: 'When it entered its state.' },
    raised_at: tsOrNull,
    value: { description: 'The value of the first field its condition reads, as last read (null: none).' },
    message: { type: 'string' },
    acked_by: textOrNull, acked_at: tsOrNull, shelved_until: tsOrNull, escalated_at: tsOrNull,
    unknown: { ...textOrNull, description: 'Why its condition cannot be judged now (a missing or stale input); the state is kept.' },
  },
  additionalProperties: false,
};

const ID = { name: 'id', in: 'path' as const, required: true, schema: { type: 'string' as const } };
const one = (description: string) => jsonAnswer(description, ALARM_SCHEMA);

/** Path items of /alarms and /alarms/{id}... */
export const alarmPaths: PathsObject = {
  '/alarms': {
    get: operation({
      operationId: 'alarms', tags: ['alarms'], summary: 'Every configured alarm, worst severity first, then by id.',
      answers: jsonAnswer('The alarms.', { type: 'object', required: ['alarms'], properties: { alarms: { type: 'array', items: ALARM_SCHEMA }, state_error: { type: 'string', description: 'Only while the alarm state file cannot be written: the states shown would not survive a restart.' } }, additionalProperties: false }),
      errors: [],
    }),
  },
  '/alarms/{id}': {
    get: operation({ operationId: 'alarm', tags: ['alarms'], summary: 'One alarm.', parameters: [ID], answers: one('The alarm.'), errors: ['UNKNOWN_ALARM'] }),
  },
  '/alarms/{id}/ack': {
    post: operation({
      operationId: 'ackAlarm', tags: ['alarms'], summary: 'Acknowledge: unack becomes acked, rtn_unack becomes normal.', parameters: [ID],
      requestBody: { required: true, content: { 'application/json': { schema: {
        type: 'object', required: ['by'], properties: {
          by, note: { type: 'string', minLength: 1, maxLength: 1024 },
          severity: { type: 'string', enum: [...ALARM_SEVERITIES], description: 'The severity the client saw: another one now answers 409 ALARM_CHANGED and nothing changes.' },
          since: { type: 'string', format: 'date-time', description: 'The alarm\'s since the client saw: another one now answers 409 ALARM_CHANGED (with `alarm`, as it is now) and nothing changes.' },
        }, additionalProperties: false,
      } } } },
      answers: one('The alarm after the acknowledgement.'),
      errors: ['UNKNOWN_ALARM', ...BODY_ERRORS, 'ALARM_NOT_UNACKED', 'ALARM_CHANGED', 'DISK_FULL', 'STORAGE_UNAVAILABLE'],
    }),
  },
  '/alarms/{id}/shelve': {
    post: operation({
      operationId: 'shelveAlarm', tags: ['alarms'], summary: 'Shelve for `for_s` seconds: no transitions, no escalation until then.', parameters: [ID],
      requestBody: { required: true, content: { 'application/json': { schema: {
        type: 'object', required: ['by', 'for_s'], properties: { by, for_s: { type: 'number', exclusiveMinimum: 0, maximum: 604800 } }, additionalProperties: false,
      } } } },
      answers: one('The shelved alarm.'),
      errors: ['UNKNOWN_ALARM', ...BODY_ERRORS, 'DISK_FULL', 'STORAGE_UNAVAILABLE'],
    }),
    delete: operation({
      operationId: 'unshelveAlarm', tags: ['alarms'], summary: 'Unshelve now: unack if its condition holds, else normal.', parameters: [ID],
      requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', properties: { by }, additionalProperties: false } } } },
      answers: one('The alarm after unshelving.'),
      errors: ['UNKNOWN_ALARM', ...BODY_ERRORS, 'ALARM_NOT_SHELVED', 'DISK_FULL', 'STORAGE_UNAVAILABLE'],
    }),
  },
};
