import type { IncomingMessage } from 'node:http';
import { MeridianError } from '../lib/errors.js';

// Reading a JSON request body with a byte limit. Nothing past the limit is read.

/** Marker for "the request had no body at all". */
export const NO_BODY: unique symbol = Symbol('no body');

/**
 * Read and parse the JSON body of `req`. Answers 415 for a body that is not declared JSON,
 * 413 past `limit` bytes (checked on Content-Length first, then while reading), 400 for
 * malformed JSON. Resolves NO_BODY for an empty body.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (declared === undefined || declared === '0')) {
    return NO_BODY;
  }
  const type = req.headers['content-type'];
  if (!isJsonType(type)) {
    throw new MeridianError('UNSUPPORTED_MEDIA_TYPE',
      `The body must be JSON sent with Content-Type: application/json; got ${type ? JSON.stringify(type) : 'no Content-Type'}.`);
  }
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  if (size === 0) return NO_BODY;
  const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MeridianError('MALFORMED_JSON', `The body is not valid JSON: ${(error as Error).message}.`);
  }
}

function isJsonType(type: string | undefined): boolean {
  if (!type) return false;
  const media = type.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

function tooLarge(limit: number): MeridianError {
  return new MeridianError('BODY_TOO_LARGE', `The body is larger than the limit of ${limit} bytes.`);
}
