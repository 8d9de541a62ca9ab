import { MeridianError, type ErrorCode } from '../../lib/errors.js';
import type { ValidEvent } from '../storage/store.js';
import { forEachItem, JsonSyntaxError } from '../../lib/json-text.js';
import { NO_BODY, parseJson, utf8Text, type BatchText } from './body.js';
import { parseEventBody } from './validate.js';

// A batch body (POST /events) turned into valid events and per-index failures, all of it
// before anything is recorded.

/** The most events one batch may hold (docs/http-api.md). */
export const MAX_BATCH_EVENTS = 10_000;

/** Why one event of a batch was refused: its 0-based index (and NDJSON line), code and detail. */
export interface BatchFailure {
  index: number;
  /** The 1-based line of an NDJSON body. */
  line?: number;
  code: ErrorCode;
  detail: string;
}

/** The valid events of a batch with their indexes, and the failures. */
export interface ParsedBatch {
  total: number;
  events: { index: number; event: ValidEvent }[];
  failures: BatchFailure[];
}

/** One item of a batch before validation: its JSON text, and its line in an NDJSON body. */
type Item = { line?: number; text: string; failure?: MeridianError };

/** Parse and validate every event of a batch. A body that is no batch at all throws (400, 413, 422). */
export function parseBatch(body: BatchText | typeof NO_BODY, maxEvents: number = MAX_BATCH_EVENTS): ParsedBatch {
  if (body === NO_BODY) throw new MeridianError('INVALID_BODY', 'The batch is empty; send a JSON array of events, or NDJSON.');
  const items = body.format === 'json' ? jsonItems(body.text) : ndjsonItems(body.bytes);
  if (items.length === 0) throw new MeridianError('INVALID_BODY', 'The batch holds no events.');
  if (items.length > maxEvents) {
    throw new MeridianError('BATCH_TOO_LARGE', `The batch holds ${items.length} events; at most ${maxEvents} are taken per request.`);
  }
  const parsed: ParsedBatch = { total: items.length, events: [], failures: [] };
  items.forEach((item, index) => {
    const line = item.line === undefined ? {} : { line: item.line };
    try {
      if (item.failure) throw item.failure;
      parsed.events.push({ index, event: parseEventBody(item.text) });
    } catch (error) {
      if (!(error instanceof MeridianError)) throw error;
      // an NDJSON line is checked as JSON by the event's own parse: named as a line
      const detail = item.line !== undefined && error.code === 'MALFORMED_JSON' ? error.message.replace(/^The body /, 'The line ') : error.message;
      parsed.failures.push({ index, ...line, code: error.code, detail });
    }
  });
  return parsed;
}

/** The items of a JSON array body, each kept as spelled (split by the scanner: no JSON.parse, no respelling). */
function jsonItems(text: string): Item[] {
  const items: Item[] = [];
  let isArray: boolean;
  try {
    isArray = forEachItem(text, (span) => { items.push({ text: text.slice(span.start, span.end) }); });
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    parseJson(text); // the same detail as JSON.parse gives (the scanner and the parser accept the same texts)
    throw new MeridianError('MALFORMED_JSON', `The body is not valid JSON: ${error.message}.`);
  }
  if (!isArray) {
    const c = text.trimStart().charCodeAt(0);
    const got = c === 110 ? 'null' : c === 123 ? 'an object' : c === 34 ? 'string' : c === 116 || c === 102 ? 'boolean' : 'number';
    throw new MeridianError('INVALID_BODY', `A JSON batch must be an array of events; got ${got} (send one event to POST /event).`);
  }
  return items;
}

/**
 * One item per non-blank line, kept as spelled (numbers stay exact); a line that is not JSON
 * fails in its own parse. Each line is decoded on its own (a newline byte never occurs inside
 * a multi-byte UTF-8 character, so this is the body's text split at its newlines).
 */
function ndjsonItems(bytes: Buffer): Item[] {
  const items: Item[] = [];
  for (let start = 0, line = 1; start < bytes.length; line++) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline;
    let source: string;
    try {
      source = utf8Text(bytes, `Line ${line}`, start, end);
    } catch (error) {
      // a line that is not UTF-8 fails on its own, as a line that is not JSON does
      source = '';
      items.push({ line, text: '', failure: error as MeridianError });
    }
    if (source.trim() !== '') items.push({ line, text: source });
    start = end + 1;
  }
  return items;
}
