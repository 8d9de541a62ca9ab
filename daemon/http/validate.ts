import { MeridianError } from '../../lib/errors.js';
import { TYPE_FORBIDDEN_CHARACTER, type JsonObject, type JsonValue } from '../../lib/wire.js';
import { NO_BODY } from './body.js';
import type { ValidEvent, ValidRunStart } from '../storage/store.js';

// Parsing untrusted request bodies into the types the store takes, once, at the boundary.

const MAX_TYPE_LENGTH = 256;

/** Validate a POST /event body. */
export function parseEventBody(body: unknown): ValidEvent {
  const obj = requireObject(body, 'The event');
  const type = obj.type;
  if (type === undefined) invalid('type is required.');
  if (typeof type !== 'string') invalid(`type must be a string; got ${describe(type)}.`);
  if (type.length === 0) invalid('type must not be empty.');
  // characters are code points: an emoji counts once, not as its two UTF-16 units
  const length = type.length > MAX_TYPE_LENGTH ? [...type].length : type.length;
  if (length > MAX_TYPE_LENGTH) invalid(`type must be at most ${MAX_TYPE_LENGTH} characters; got ${length}.`);
  if (TYPE_FORBIDDEN_CHARACTER.test(type)) invalid('type must not contain control characters.');
  if (!('data' in obj)) invalid('data is required (null counts as given).');
  const makeCurrent = obj.make_current;
  if (makeCurrent !== undefined && typeof makeCurrent !== 'boolean') {
    invalid(`make_current must be true or false; got ${describe(makeCurrent)}.`);
  }
  return { type, data: obj.data as JsonValue, makeCurrent: makeCurrent ?? true, meta: optionalMeta(obj.meta) };
}

/** Validate a POST /run/start body (which may be absent). */
export function parseRunStartBody(body: unknown): ValidRunStart {
  if (body === NO_BODY) return { meta: {} };
  const obj = requireObject(body, 'The run start body');
  const runDir = obj.run_dir;
  const runId = obj.run_id;
  if (runDir !== undefined && (typeof runDir !== 'string' || runDir === '')) {
    invalid(`run_dir must be a non-empty string; got ${describe(runDir)}.`);
  }
  if (runId !== undefined && typeof runId !== 'string') invalid(`run_id must be a string; got ${describe(runId)}.`);
  return { runDir, runId, meta: optionalMeta(obj.meta) };
}

function optionalMeta(meta: unknown): JsonObject {
  if (meta === undefined) return {};
  if (!isObject(meta)) invalid(`meta must be a JSON object; got ${describe(meta)}.`);
  return meta as JsonObject;
}

function requireObject(body: unknown, what: string): Record<string, unknown> {
  if (body === NO_BODY) invalid(`${what} must be a JSON object; the body is empty.`);
  if (!isObject(body)) invalid(`${what} must be a JSON object; got ${describe(body)}.`);
  return body as Record<string, unknown>;
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);
}

function invalid(detail: string): never {
  throw new MeridianError('INVALID_BODY', detail);
}
