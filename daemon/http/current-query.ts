import { flagParam, readQuery, typesParam, type QueryPolicy } from './query.js';

// The query of GET /current: `?type=a,b` (repeatable), `?stale=true|false`,
// `?freshness=true|false`, read by the shared reader (query.ts). Without `freshness` the answer
// is the original service's body; `stale` filters by freshness, so it brings `freshness` along
// unless `freshness=false` is given (a type expected but never seen is listed only there).

/** The names GET /current takes; any other is ignored, never read (the original clients send `stream`). */
const POLICY: QueryPolicy = { known: ['type', 'stale', 'freshness'], unknown: 'ignore' };

/** What GET /current was asked for. */
export interface CurrentQuery {
  /** Only these types (undefined: all). */
  types: ReadonlySet<string> | undefined;
  /** Only stale types (true) or only fresh ones (false); undefined: both. */
  stale: boolean | undefined;
  /** Whether the answer carries `freshness` (default false; `stale` alone makes it true). */
  freshness: boolean;
}

/** Parse the query part of a request URL. A bad value is a 422 INVALID_QUERY. */
export function parseCurrentQuery(url: string): CurrentQuery {
  const query = readQuery(url, POLICY);
  const types = typesParam(query);
  const stale = flagParam(query, 'stale');
  const freshness = flagParam(query, 'freshness') ?? stale !== undefined;
  return { types, stale, freshness };
}
