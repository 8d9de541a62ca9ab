import { formatTs, normaliseTs } from '../../lib/time.js';
import { invalid, single, type Query } from './query.js';
import { wholeNumberIn } from '../../lib/whole-number.js';

// The values of GET /history's query beyond the shared reader's (query.ts): times, counts and
// run ids. Every mistake is an INVALID_QUERY naming the parameter, what it takes and what was given.

const UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const RELATIVE = /^-(\d+(?:\.\d+)?)(s|m|h|d|w)$/;
const HAS_ZONE = /(?:Z|[+-]\d\d(?::?\d\d)?)$/i;
const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * A time parameter as canonical ts text: ISO-8601 with `Z` or an offset, `now`, or relative to
 * `nowMs` as `-90s`, `-15m`, `-2h`, `-1d`, `-1w`. A time without a zone is refused (as in events).
 */
export function timeParam(query: Query, name: string, nowMs: number): string | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  const relative = RELATIVE.exec(text);
  let ms = NaN;
  if (text === 'now') ms = nowMs;
  else if (relative) ms = nowMs - Math.round(Number(relative[1]) * UNITS[relative[2]!]!);
  else if (/^\d{4}-\d\d-\d\dT/.test(text) && HAS_ZONE.test(text)) {
    // the spellings an event's ts takes, by the same rule (no 2026-02-30, no +24:00)
    const normal = normaliseTs(text);
    ms = 'ts' in normal ? Date.parse(normal.ts) : NaN;
  }
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
    invalid(`${name} must be an ISO-8601 time with Z or an offset, now, or a relative time such as -2h (s, m, h, d, w); got ${JSON.stringify(text)}.`);
  }
  return formatTs(ms);
}

/** A whole number parameter in [1, max], `fallback` when absent. */
export function countParam(query: Query, name: string, fallback: number, max: number): number {
  const text = single(query, name);
  if (text === undefined) return fallback;
  const n = wholeNumberIn(text, 1, max, true);
  if (n === undefined) invalid(`${name} must be a whole number from 1 to ${max}; got ${JSON.stringify(text)}.`);
  return n;
}

/** The `run` parameter: `site`, a run id, or undefined for everything. */
export function runParam(query: Query): string | undefined {
  const text = single(query, 'run');
  if (text !== undefined && !RUN_ID.test(text)) {
    invalid(`run must be a run id (letters, digits, '.', '_', '-') or site; got ${JSON.stringify(text)}.`);
  }
  return text;
}
