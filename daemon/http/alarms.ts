import { MeridianError } from '../../lib/errors.js';
import { exactJson } from '../../lib/exact-json.js';
import { scanMembers } from '../../lib/json-text.js';
import { normaliseTs } from '../../lib/time.js';
import { ALARM_SEVERITIES, TYPE_FORBIDDEN_CHARACTER, type AlarmSeverity } from '../../lib/wire.js';
import type { AckSeen } from '../alarms/ack-guard.js';
import type { AlarmEngine } from '../alarms/engine.js';
import { MAX_SHELF_MS } from '../alarms/machine.js';
import { NO_BODY, parseJson, readBodyText, readJsonBody } from './body.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';

// Alarms (docs/alarms.md): every alarm, one alarm, acknowledging, shelving and unshelving.
// Bodies are small objects checked whole: a missing or ill-typed field, or a key the endpoint
// does not take, is a 422 INVALID_BODY naming it, and nothing changes.

/** The longest shelf time (a week): a forgotten shelf must end by itself. */
export const MAX_SHELVE_S = MAX_SHELF_MS / 1000;
const MAX_BY = 64;
const MAX_NOTE = 1024;

/** Handlers of GET /alarms, GET /alarms/{id}, POST /alarms/{id}/ack, POST and DELETE /alarms/{id}/shelve. */
export function alarmHandlers({ alarms, config }: AppDeps): Record<'list' | 'one' | 'ack' | 'shelve' | 'unshelve', Handler> {
  const id = (params: Record<string, string> | undefined) => params?.id ?? '';
  return {
    // `state_error` only while the state file cannot be written: the alarms shown are not durable
    list: (_req, res) => {
      const error = alarms.stateError;
      sendJson(res, 200, exactJson({ alarms: alarms.list(), ...(error === undefined ? {} : { state_error: error }) }));
    },
    one: (req, res) => sendJson(res, 200, exactJson(alarms.get(id(req.params)))),
    ack: async (req, res) => {
      const alarm = known(alarms, id(req.params));
      const body = fields(await readJsonBody(req, config.maxBody), 'an acknowledgement', ['by', 'note', 'severity', 'since']);
      const by = byOf(body, true)!;
      const note = text(body, 'note', MAX_NOTE, false);
      sendJson(res, 200, exactJson(await alarms.ack(alarm, by, note, seenOf(body))));
    },
    shelve: async (req, res) => {
      const alarm = known(alarms, id(req.params));
      const raw = await readBodyText(req, config.maxBody);
      const body = fields(raw === NO_BODY ? NO_BODY : parseJson(raw), 'a shelve request', ['by', 'for_s']);
      const by = byOf(body, true)!;
      const forS = body.for_s;
      if (typeof forS !== 'number' || !Number.isFinite(forS) || forS <= 0 || forS > MAX_SHELVE_S) {
        invalid(`for_s must be a number of seconds above 0 and at most ${MAX_SHELVE_S} (7 days); got ${describe(forS, spelled(raw as string, 'for_s'))}.`);
      }
      sendJson(res, 200, exactJson(await alarms.shelve(alarm, by, Math.round(forS * 1000))));
    },
    unshelve: async (req, res) => {
      const alarm = known(alarms, id(req.params));
      const raw = await readJsonBody(req, config.maxBody);
      const body = raw === NO_BODY ? {} : fields(raw, 'an unshelve request', ['by']);
      sendJson(res, 200, exactJson(await alarms.unshelve(alarm, byOf(body, false))));
    },
  };
}

/** What the acknowledging client saw (`severity`, `since`: each optional), checked by the engine (409 ALARM_CHANGED). */
function seenOf(body: Record<string, unknown>): AckSeen {
  const { severity, since } = body;
  if (severity !== undefined && (typeof severity !== 'string' || !(ALARM_SEVERITIES as readonly string[]).includes(severity))) {
    invalid(`severity (the one you saw) must be "warning", "serious" or "critical"; got ${describe(severity)}.`);
  }
  let ts: string | undefined;
  if (since !== undefined) {
    const read = typeof since === 'string' ? normaliseTs(since) : { problem: 'must be a string' };
    if ('problem' in read) invalid(`since (the alarm's since you saw) ${read.problem}; got ${describe(since)}.`);
    else ts = read.ts;
  }
  return { ...(severity === undefined ? {} : { severity: severity as AlarmSeverity }), ...(ts === undefined ? {} : { since: ts }) };
}

/** The id of a configured alarm (404 UNKNOWN_ALARM before the body is read). */
function known(alarms: AlarmEngine, id: string): string {
  alarms.get(id);
  return id;
}

function fields(body: unknown, what: string, keys: readonly string[]): Record<string, unknown> {
  if (body === NO_BODY) invalid(`The body must be ${what}, a JSON object such as {"by": "name"}; the body is empty.`);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) invalid(`The body must be ${what}, a JSON object; got ${describe(body)}.`);
  const extra = Object.keys(body).find((k) => !keys.includes(k));
  if (extra !== undefined) invalid(`The body of ${what} takes ${keys.length > 1 ? `${keys.slice(0, -1).join(', ')} and ${keys.at(-1)!}` : keys[0]}; ${JSON.stringify(extra)} is not one of them.`);
  return body as Record<string, unknown>;
}

function byOf(body: Record<string, unknown>, required: boolean): string | undefined {
  return text(body, 'by', MAX_BY, required);
}

function text(body: Record<string, unknown>, key: string, max: number, required: boolean): string | undefined {
  const v = body[key];
  if (v === undefined && !required) return undefined;
  // characters as a person counts them: code points (an emoji is one, not two UTF-16 units)
  if (typeof v !== 'string' || v.trim() === '' || [...v].length > max || TYPE_FORBIDDEN_CHARACTER.test(v)) {
    invalid(`${key} must be a non-empty string of at most ${max} characters without control characters${required ? ' (who does this)' : ''}; got ${describe(v)}.`);
  }
  return v;
}

/** The member `key` of the JSON object `text` as the sender spelled it (`1e309`, which JSON.parse makes Infinity). */
function spelled(text: string, key: string): string | undefined {
  const span = scanMembers(text)?.get(key);
  return span === undefined ? undefined : text.slice(span.start, span.end);
}

/** `v` for an error detail: JSON, cut at 80 characters; `spelling`: the sender's text, for a number JSON cannot hold. */
function describe(v: unknown, spelling?: string): string {
  if (v === undefined) return 'nothing';
  const json = typeof v === 'number' && !Number.isFinite(v) && spelling !== undefined ? spelling : JSON.stringify(v);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

function invalid(detail: string): never {
  throw new MeridianError('INVALID_BODY', detail);
}
