import type { RollupAnswer } from '../lib/wire.js';
import { listParam, typeParam } from './type-query.js';

// client.rollup(): GET /history with a type and step (docs/rollups.md), its query string.

/** What `rollup()` takes besides the type; every field optional. */
export interface RollupOptions {
  /** `auto` (default: the coarsest tier giving at least `width` buckets), `1m`, `15m`, `1h` or `night`. */
  step?: 'auto' | RollupAnswer['step'];
  /** With `auto`: the least number of buckets wanted (1-10000, default 1000 on the daemon). */
  width?: number;
  /** The fields, such as `['data.temp', 'data.wind.speed']` (default: every numeric field found). */
  fields?: readonly string[];
  /** From this time, inclusive: a Date, an ISO-8601 text with a zone, or relative such as `-2h`. */
  from?: Date | string;
  /** Up to this time, exclusive (same forms as `from`). */
  to?: Date | string;
}

/** The path of GET /history for a rollup. */
export function rollupPath(type: string, options: RollupOptions): string {
  const params = [typeParam([type])!, `step=${options.step ?? 'auto'}`];
  if (options.width !== undefined) params.push(`width=${options.width}`);
  if (options.fields !== undefined) params.push(listParam('fields', options.fields));
  for (const name of ['from', 'to'] as const) {
    const value = options[name];
    if (value !== undefined) params.push(`${name}=${encodeURIComponent(value instanceof Date ? value.toISOString() : value)}`);
  }
  return `history?${params.join('&')}`;
}
