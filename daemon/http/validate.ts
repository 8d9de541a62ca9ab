import { MeridianError } from '../../lib/errors.js';
import { compactText, JsonSyntaxError, mayNameKey, scanMembers, setMember, spanString, type Members, type MemberSpan } from '../../lib/json-text.js';
import { normaliseTs } from '../../lib/time.js';
import { DAEMON_TYPE_PREFIX } from '../../lib/max-age.js';
import { DAEMON_ONLY_TYPES, TYPE_FORBIDDEN_CHARACTER } from '../../lib/wire.js';
import { NO_BODY, parseJson } from './body.js';
import type { ValidEvent, ValidRunStart } from '../storage/store.js';

// Parsing untrusted request bodies into the types the store takes, once, at the boundary.
// `data` and `meta` stay JSON text as the caller spelled it (whitespace between tokens
// dropped): no number is rounded or respelled on its way to the file.

const MAX_TYPE_LENGTH = 256;
/** The deepest nesting of arrays and objects accepted in `data` and `meta` (docs/http-api.md). */
export const MAX_NESTING = 64;

/** Validate a POST /event body (its text, or NO_BODY). */
export function parseEventBody(body: string | typeof NO_BODY): ValidEvent {
  const members = objectMembers(body, 'The event');
  const text = body as string;
  const typeSpan = members.get('type');
  if (typeSpan === undefined) invalid('type is required.');
  const type = spanString(text, typeSpan);
  if (type === undefined) invalid(`type must be a string; got ${describe(text, typeSpan)}.`);
  if (type.length === 0) invalid('type must not be empty.');
  // characters are code points: an emoji counts once, not as its two UTF-16 units
  const length = type.length > MAX_TYPE_LENGTH ? [...type].length : type.length;
  if (length > MAX_TYPE_LENGTH) invalid(`type must be at most ${MAX_TYPE_LENGTH} characters; got ${length}.`);
  if (TYPE_FORBIDDEN_CHARACTER.test(type)) invalid('type must not contain control characters.');
  if (DAEMON_ONLY_TYPES.has(type)) invalid(`type ${type} is recorded by the daemon alone (${DAEMON_ONLY_TYPES.get(type)}); post another type.`);
  const data = members.get('data');
  if (data === undefined) invalid('data is required (null counts as given).');
  const event: ValidEvent = {
    type,
    data: nestedText(text, data, 'data'),
    makeCurrent: flag(text, members.get('make_current'), 'make_current'),
    storePermanently: flag(text, members.get('store_permanently'), 'store_permanently'),
    ts: clientTs(text, members.get('ts')),
    meta: metaText(text, members.get('meta'), false) ?? '{}',
  };
  if (event.ts !== undefined) event.tsMs = Date.parse(event.ts);
  // the reading's own limit is kept as meta.max_age_s; a caller may set that itself (checked the same way)
  const inMeta = mayNameKey(event.meta, 'max_age_s') ? maxAge(event.meta, scanMembers(event.meta)!.get('max_age_s'), 'meta.max_age_s') : undefined;
  const own = maxAge(text, members.get('max_age_s'), 'max_age_s');
  if (own !== undefined) event.meta = setMember(event.meta, 'max_age_s', own);
  // what the judge would read from the envelope (a daemon type's meta carries no limit: it is left to the judge)
  if (!type.startsWith(DAEMON_TYPE_PREFIX)) event.maxAgeS = own !== undefined ? Number(own) : inMeta !== undefined ? Number(inMeta) : null;
  return event;
}

/**
 * An event's own maximum age: a positive number of seconds as spelled, undefined when absent
 * or null; anything else is a 422 INVALID_MAX_AGE.
 */
function maxAge(text: string, span: MemberSpan | undefined, name: string): string | undefined {
  if (span === undefined || !given(text, span)) return undefined;
  const spelled = compactText(text, span);
  const seconds = /^-?[0-9]/.test(spelled) ? Number(spelled) : NaN;
  if (!(Number.isFinite(seconds) && seconds > 0)) {
    throw new MeridianError('INVALID_MAX_AGE', `${name} must be a positive number of seconds or null; got ${describe(text, span)}.`);
  }
  return spelled;
}

/** Validate a POST /run/start body (which may be absent or `null`; a `null` field is one not given). */
export function parseRunStartBody(body: string | typeof NO_BODY): ValidRunStart {
  if (body === NO_BODY) return { meta: '{}' };
  const members = scan(body);
  if (!members) {
    const value = parseJson(body);
    if (value === null) return { meta: '{}' };
    invalid(`The run start body must be a JSON object or null; got ${describeValue(value)}.`);
  }
  const runDir = optionalString(body, members.get('run_dir'));
  if (runDir === '' || (runDir === undefined && given(body, members.get('run_dir')))) {
    invalid(`run_dir must be a non-empty string or null; got ${describe(body, members.get('run_dir')!)}.`);
  }
  const runId = optionalString(body, members.get('run_id'));
  if (runId === undefined && given(body, members.get('run_id'))) {
    invalid(`run_id must be a string or null; got ${describe(body, members.get('run_id')!)}.`);
  }
  const meta = metaText(body, members.get('meta'), true) ?? '{}';
  let metaRunId: string | undefined;
  if (runId === undefined) {
    // meta.run_id names the run when run_id does not (null: not given)
    const metaMembers = scan(meta)!;
    const span = metaMembers.get('run_id');
    metaRunId = span && optionalString(meta, span);
    if (metaRunId === undefined && given(meta, span)) {
      throw new MeridianError('INVALID_RUN', 'meta.run_id must be a string when it names the run');
    }
  }
  return { runDir, runId, meta, metaRunId };
}

/** The members of a body that must be a JSON object. */
function objectMembers(body: string | typeof NO_BODY, what: string): Members {
  if (body === NO_BODY) invalid(`${what} must be a JSON object; the body is empty.`);
  const members = scan(body);
  if (!members) invalid(`${what} must be a JSON object; got ${describeValue(parseJson(body))}.`);
  return members;
}

/** scanMembers, with text that is not JSON answered 400 MALFORMED_JSON. */
function scan(text: string): Members | undefined {
  try {
    return scanMembers(text);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    // the same detail as JSON.parse gives (the scanner and the parser accept the same texts)
    parseJson(text);
    throw new MeridianError('MALFORMED_JSON', `The body is not valid JSON: ${error.message}.`);
  }
}

function flag(text: string, span: MemberSpan | undefined, name: string): boolean {
  if (span === undefined) return true;
  const c = text.charCodeAt(span.start);
  if (c === 116 && span.end - span.start === 4) return true;
  if (c === 102 && span.end - span.start === 5) return false;
  invalid(`${name} must be true or false; got ${describe(text, span)}.`);
}

function clientTs(text: string, span: MemberSpan | undefined): string | undefined {
  if (span === undefined || !given(text, span)) return undefined;
  const value = spanString(text, span);
  if (value === undefined) invalid(`ts must be a string (ISO-8601 with Z or a UTC offset); got ${describe(text, span)}.`);
  const result = normaliseTs(value);
  if ('problem' in result) invalid(`ts ${result.problem}; got ${JSON.stringify(value).slice(0, 80)}.`);
  return result.ts;
}

/** `meta` as compact text; undefined when absent (or null, where `nullable`). */
function metaText(text: string, span: MemberSpan | undefined, nullable: boolean): string | undefined {
  if (span === undefined || (nullable && !given(text, span))) return undefined;
  if (text.charCodeAt(span.start) !== 123) invalid(`meta must be a JSON object; got ${describe(text, span)}.`);
  return nestedText(text, span, 'meta');
}

function nestedText(text: string, span: MemberSpan, name: string): string {
  if (span.depth > MAX_NESTING) {
    invalid(`${name} nests ${span.depth} levels of arrays and objects; at most ${MAX_NESTING} are accepted.`);
  }
  return compactText(text, span);
}

function optionalString(text: string, span: MemberSpan | undefined): string | undefined {
  return span === undefined ? undefined : spanString(text, span);
}

/** Whether a member is there and not `null`. */
function given(text: string, span: MemberSpan | undefined): span is MemberSpan {
  return span !== undefined && !(text.charCodeAt(span.start) === 110 && span.end - span.start === 4);
}

/** How an error detail names a value the caller sent: its kind, and its text when short. */
function describe(text: string, span: MemberSpan): string {
  const c = text.charCodeAt(span.start);
  if (c === 123) return 'an object';
  if (c === 91) return 'an array';
  if (c === 110) return 'null';
  const kind = c === 34 ? 'string' : c === 116 || c === 102 ? 'boolean' : 'number';
  return `${kind} ${compactText(text, span)}`.slice(0, 80);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);
}

function invalid(detail: string): never {
  throw new MeridianError('INVALID_BODY', detail);
}
