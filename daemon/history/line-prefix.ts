// What history needs of a line without parsing all of it: seq, ts and type. Meridian writes
// `{"seq":N,"ts":"...","type":"...",` first, so those are read straight off the text; any
// other line (the original service's, with a `stream` key) is parsed as JSON.

/** The three keys of an envelope line that queries filter and order on. */
export interface LineKeys {
  seq: number;
  /** Canonical ts (`YYYY-MM-DDTHH:MM:SS.mmmZ`), so that text order is time order; '' when unreadable. */
  ts: string;
  type: string;
}

const CANONICAL_TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SEQ_KEY = '{"seq":';
const TS_KEY = ',"ts":"';
const TYPE_KEY = '","type":"';

/** The seq, ts and type of one line (without its newline), or undefined when it is no envelope. */
export function lineKeys(line: string): LineKeys | undefined {
  if (line.startsWith(SEQ_KEY)) {
    const comma = line.indexOf(',', SEQ_KEY.length);
    const seq = Number(line.slice(SEQ_KEY.length, comma));
    if (comma > 0 && Number.isSafeInteger(seq) && line.startsWith(TS_KEY, comma)) {
      const tsStart = comma + TS_KEY.length;
      const tsEnd = line.indexOf('"', tsStart);
      if (tsEnd > 0 && line.startsWith(TYPE_KEY, tsEnd)) {
        const typeStart = tsEnd + TYPE_KEY.length;
        const type = jsonStringAt(line, typeStart);
        if (type !== undefined) return { seq, ts: canonicalTs(line.slice(tsStart, tsEnd)), type };
      }
    }
  }
  return parsedKeys(line);
}

/** A ts as text that sorts in time order: canonical form as is, other ISO forms normalised, '' when unreadable. */
export function canonicalTs(ts: string): string {
  if (CANONICAL_TS.test(ts)) return ts;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
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

function parsedKeys(line: string): LineKeys | undefined {
  try {
    const v = JSON.parse(line) as { seq?: unknown; ts?: unknown; type?: unknown };
    if (v && typeof v === 'object' && Number.isSafeInteger(v.seq) && typeof v.ts === 'string' && typeof v.type === 'string') {
      return { seq: v.seq as number, ts: canonicalTs(v.ts), type: v.type };
    }
  } catch { /* not JSON */ }
  return undefined;
}
