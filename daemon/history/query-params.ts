import { MeridianError } from '../../lib/errors.js';
import { formatTs, normaliseTs } from '../../lib/time.js';
import { TYPE_FORBIDDEN_CHARACTER } from '../../lib/wire.js';

// The query string of /history and /stream, read once into typed values. Every mistake is an
// INVALID_QUERY naming the parameter, what it takes and what was given.

/** Query parameters by name; `type` may repeat, each value split on raw commas. */
export type RawQuery = Map<string, string[]>;

const UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const RELATIVE = /^-(\d+(?:\.\d+)?)(s|m|h|d|w)$/;
const HAS_ZONE = /(?:Z|[+-]\d\d(?::?\d\d)?)$/i;
const RUN_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Split a URL's query into parameters; refuses names not in `known`. A `type` value splits on raw commas (a comma in a type is sent as %2C). */
export function readQuery(url: string, known: readonly string[]): RawQuery {
  const query = new Map<string, string[]>();
  const at = url.indexOf('?');
  if (at === -1) return query;
  for (const pair of url.slice(at + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq === -1 ? pair : pair.slice(0, eq), 'a parameter name');
    const raw = eq === -1 ? '' : pair.slice(eq + 1);
    if (!known.includes(name)) {
      throw new MeridianError('INVALID_QUERY', `unknown query parameter ${JSON.stringify(name)}; this path takes ${known.join(', ')}`);
    }
    const values = name === 'type' ? raw.split(',').map((v) => decode(v, 'type')) : [decode(raw, name)];
    query.set(name, [...(query.get(name) ?? []), ...values]);
  }
  return query;
}

/** The one value of a parameter (undefined when absent); given twice is a mistake. */
export function single(query: RawQuery, name: string): string | undefined {
  const values = query.get(name);
  if (values === undefined) return undefined;
  if (values.length > 1) throw new MeridianError('INVALID_QUERY', `${name} is given more than once`);
  return values[0];
}

/** The set of types asked for, or undefined for every type. */
export function typesParam(query: RawQuery): Set<string> | undefined {
  const values = query.get('type');
  if (values === undefined) return undefined;
  for (const type of values) {
    if (type === '' || type.length > 256 || TYPE_FORBIDDEN_CHARACTER.test(type)) {
      throw new MeridianError('INVALID_QUERY', `type must be a list of event types (1-256 characters, no control characters, comma-separated); got ${JSON.stringify(type)}`);
    }
  }
  return new Set(values);
}

/**
 * A time parameter as canonical ts text: ISO-8601 with `Z` or an offset, `now`, or relative to
 * `nowMs` as `-90s`, `-15m`, `-2h`, `-1d`, `-1w`. A time without a zone is refused (as in events).
 */
export function timeParam(query: RawQuery, name: string, nowMs: number): string | undefined {
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
    throw new MeridianError('INVALID_QUERY', `${name} must be an ISO-8601 time with Z or an offset, now, or a relative time such as -2h (s, m, h, d, w); got ${JSON.stringify(text)}`);
  }
  return formatTs(ms);
}

/** A whole number parameter in [1, max], `fallback` when absent. */
export function countParam(query: RawQuery, name: string, fallback: number, max: number): number {
  const text = single(query, name);
  if (text === undefined) return fallback;
  const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= max)) throw new MeridianError('INVALID_QUERY', `${name} must be a whole number from 1 to ${max}; got ${JSON.stringify(text)}`);
  return n;
}

/** The `run` parameter: `site`, a run id, or undefined for everything. */
export function runParam(query: RawQuery): string | undefined {
  const text = single(query, 'run');
  if (text !== undefined && !RUN_ID.test(text)) {
    throw new MeridianError('INVALID_QUERY', `run must be a run id (letters, digits, '.', '_', '-') or site; got ${JSON.stringify(text)}`);
  }
  return text;
}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new MeridianError('INVALID_QUERY', `${what} is not valid percent-encoding: ${JSON.stringify(text)}`);
  }
}
