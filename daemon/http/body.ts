import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { bodyCoding } from '../../lib/content-coding.js';
import { MeridianError } from '../../lib/errors.js';

// Reading a JSON request body with a byte limit. Nothing past the limit is read.

/** Marker for "the request had no body at all". */
export const NO_BODY: unique symbol = Symbol('no body');

/**
 * Read the body of `req` as text. Answers 415 for a body that is not declared JSON, 413 past
 * `limit` bytes (checked on Content-Length first, then while reading). Resolves NO_BODY for
 * an empty body. The text is parsed by the caller (validate.ts keeps numbers as spelled).
 */
export async function readBodyText(req: IncomingMessage, limit: number): Promise<string | typeof NO_BODY> {
  const declared = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (declared === undefined || declared === '0')) {
    return NO_BODY;
  }
  refuseCoded(req);
  const type = req.headers['content-type'];
  if (!isJsonType(type)) {
    throw new MeridianError('UNSUPPORTED_MEDIA_TYPE',
      `The body must be JSON sent with Content-Type: application/json; got ${type ? JSON.stringify(type) : 'no Content-Type'}.`);
  }
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
  const { chunks, size } = await collect(req, limit);
  if (size === 0) return NO_BODY;
  return utf8Text(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), 'The body');
}

/**
 * The text of `bytes`, which must be UTF-8: a byte sequence that is not (which decoding would
 * silently store as U+FFFD) is a 422 INVALID_ENCODING. `what` names it in the detail.
 */
export function utf8Text(bytes: Buffer, what: string, start = 0, end = bytes.length): string {
  if (!isUtf8(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end))) {
    throw new MeridianError('INVALID_ENCODING', `${what} is not valid UTF-8 text; send it encoded as UTF-8.`);
  }
  return bytes.toString('utf8', start, end);
}

/** Read and parse the JSON body of `req` (readBodyText, then 400 for malformed JSON). */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = await readBodyText(req, limit);
  return text === NO_BODY ? NO_BODY : parseJson(text);
}

/** JSON.parse, with malformed text answered 400 MALFORMED_JSON (the parser's message as the detail). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MeridianError('MALFORMED_JSON', `The body is not valid JSON: ${(error as Error).message}.`);
  }
}

/**
 * A batch body: a JSON array as text, or NDJSON as its bytes (decoded line by line: a body
 * of thousands of events as one string would be allocated straight into the old generation).
 */
export type BatchText = { format: 'json'; text: string } | { format: 'ndjson'; bytes: Buffer };

/**
 * Read the body of POST /events: JSON (`application/json`) or NDJSON (`application/x-ndjson`,
 * `application/ndjson`), at most `limit` bytes (413 past it, 415 for another type).
 * Resolves NO_BODY for an empty body.
 */
export async function readBatchBody(req: IncomingMessage, limit: number): Promise<BatchText | typeof NO_BODY> {
  const declared = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (declared === undefined || declared === '0')) return NO_BODY;
  refuseCoded(req);
  const type = req.headers['content-type'];
  const media = type?.split(';')[0]!.trim().toLowerCase();
  const format = media === 'application/x-ndjson' || media === 'application/ndjson' ? 'ndjson' : isJsonType(type) ? 'json' : undefined;
  if (!format) {
    throw new MeridianError('UNSUPPORTED_MEDIA_TYPE', 'A batch must be sent as Content-Type: application/json (an array) or '
      + `application/x-ndjson (one event per line); got ${type ? JSON.stringify(type) : 'no Content-Type'}.`);
  }
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
  const { chunks, size } = await collect(req, limit);
  if (size === 0) return NO_BODY;
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  return format === 'json' ? { format, text: utf8Text(bytes, 'The body') } : { format, bytes };
}

// a body declared compressed is refused, never read as if it were plain
function refuseCoded(req: IncomingMessage): void {
  const coding = bodyCoding(req.headers['content-encoding']);
  if (coding !== undefined) {
    throw new MeridianError('UNSUPPORTED_MEDIA_TYPE', `The body must be sent uncompressed; got Content-Encoding: ${JSON.stringify(coding)}.`);
  }
}

/** Collect the body; past `limit` stop reading (the stream is paused, never drained) and reject. */
function collect(req: IncomingMessage, limit: number): Promise<{ chunks: Buffer[]; size: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => { done(); resolve({ chunks, size }); };
    const onError = (error: Error) => {
      done();
      reject(new MeridianError('MALFORMED_JSON', `The request body was cut off (${error.message}).`));
    };
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function isJsonType(type: string | undefined): boolean {
  if (!type) return false;
  if (type === 'application/json') return true;
  const media = type.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

function tooLarge(limit: number): MeridianError {
  return new MeridianError('BODY_TOO_LARGE', `The body is larger than the limit of ${limit} bytes.`);
}
