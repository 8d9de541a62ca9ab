import { MeridianError } from '../../lib/errors.js';

// The query of GET /current: `?type=a,b` (repeatable), `?stale=true|false`,
// `?freshness=true|false`. Without `freshness` the answer is the original service's body;
// `stale` filters by freshness, so it brings `freshness` along unless `freshness=false` is
// given (a type expected but never seen is listed only there). Parameters it does not know
// are ignored (the original clients send `stream`).

/** What GET /current was asked for. */
export interface CurrentQuery {
  /** Only these types (undefined: all). */
  types: ReadonlySet<string> | undefined;
  /** Only stale types (true) or only fresh ones (false); undefined: both. */
  stale: boolean | undefined;
  /** Whether the answer carries `freshness` (default false; `stale` alone makes it true). */
  freshness: boolean;
}

/** Parse the query part of a request URL. A bad value is a 400 INVALID_QUERY. */
export function parseCurrentQuery(url: string): CurrentQuery {
  const at = url.indexOf('?');
  const query: CurrentQuery = { types: undefined, stale: undefined, freshness: false };
  if (at === -1) return query;
  let freshness: boolean | undefined;
  const types = new Set<string>();
  for (const pair of url.slice(at + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decode(eq === -1 ? pair : pair.slice(0, eq));
    const raw = eq === -1 ? '' : pair.slice(eq + 1);
    if (name === 'type') {
      // split before decoding: a comma inside a type name is sent as %2C
      for (const piece of raw.split(',')) {
        const type = decode(piece);
        if (type === '') invalid(`type must name event types separated by commas; got ${JSON.stringify(decode(raw))}.`);
        types.add(type);
      }
      query.types = types;
    } else if (name === 'stale') {
      query.stale = flag(name, decode(raw));
    } else if (name === 'freshness') {
      freshness = flag(name, decode(raw));
    }
  }
  query.freshness = freshness ?? query.stale !== undefined;
  return query;
}

function flag(name: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  invalid(`${name} must be true or false; got ${JSON.stringify(value)}.`);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    invalid(`The query holds a malformed %-escape: ${JSON.stringify(text.slice(0, 80))}.`);
  }
}

function invalid(detail: string): never {
  throw new MeridianError('INVALID_QUERY', detail);
}
