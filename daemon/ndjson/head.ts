import type { Envelope } from '../../lib/wire.js';

// The head of an envelope line: seq, ts and type. Meridian writes `{"seq":N,"ts":"...",
// "type":"...",` first, so the head is read straight off the text without parsing `data`
// (which can be large); any other line (the original service's, with a `stream` key, or its
// own key order) is parsed as JSON. Every reader of the recorded files takes heads from here.

/** The three keys every reader orders and filters on. */
export interface LineHead {
  seq: number;
  /** The envelope's ts as written (use canonicalTs to compare in time order). */
  ts: string;
  type: string;
}

const CANONICAL_TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SEQ_KEY = '{"seq":';
const TS_KEY = ',"ts":"';
const TYPE_KEY = '","type":"';

/** The head of one line (without its newline), or undefined when the line is no envelope. */
export function lineHead(line: string): LineHead | undefined {
  if (line.startsWith(SEQ_KEY)) {
    const comma = line.indexOf(',', SEQ_KEY.length);
    const seq = Number(line.slice(SEQ_KEY.length, comma));
    if (comma > 0 && Number.isSafeInteger(seq) && line.startsWith(TS_KEY, comma)) {
      const tsStart = comma + TS_KEY.length;
      const tsEnd = line.indexOf('"', tsStart);
      if (tsEnd > 0 && line.startsWith(TYPE_KEY, tsEnd)) {
        const type = jsonStringAt(line, tsEnd + TYPE_KEY.length);
        if (type !== undefined) return { seq, ts: line.slice(tsStart, tsEnd), type };
      }
    }
  }
  return headOfValue(parsed(line));
}

/**
 * A whole line parsed and checked as an envelope (start-up needs `meta` of some lines, and
 * a line it makes current must be valid JSON throughout), or undefined.
 */
export function parseEnvelope(line: string): Envelope | undefined {
  const value = parsed(line);
  return headOfValue(value) ? value as Envelope : undefined;
}

/** A ts as text that sorts in time order: canonical form as is, other ISO forms normalised, '' when unreadable. */
export function canonicalTs(ts: string): string {
  if (CANONICAL_TS.test(ts)) return ts;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
}

/** The head of a parsed value: what makes a JSON value an envelope. */
function headOfValue(v: unknown): LineHead | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const { seq, ts, type } = v as { seq?: unknown; ts?: unknown; type?: unknown };
  if (Number.isSafeInteger(seq) && typeof ts === 'string' && typeof type === 'string') return { seq: seq as number, ts, type };
  return undefined;
}

function parsed(line: string): unknown {
  if (line.length === 0) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The JSON string whose text starts at `start` (just after its opening quote). */
function jsonStringAt(line: string, start: number): string | undefined {
  let end = line.indexOf('"', start);
  // a quote preceded by an odd number of backslashes is part of the string
  while (end !== -1 && backslashesBefore(line, end, start) % 2 === 1) end = line.indexOf('"', end + 1);
  if (end === -1) return undefined;
  const raw = line.slice(start, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}

function backslashesBefore(line: string, at: number, start: number): number {
  let n = 0;
  for (let i = at - 1; i >= start && line.charCodeAt(i) === 92; i--) n++;
  return n;
}
