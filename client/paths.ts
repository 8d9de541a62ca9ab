import { typeParam } from './type-query.js';

// The paths (with their query) of the client's calls that take options.

/** The path of POST /events with its query. */
export function batchPath(options: { partial?: boolean }): string {
  return options.partial ? 'events?partial=true' : 'events';
}

/** The path of GET /current with its query. */
export function currentPath(filter: { freshness?: boolean; types?: readonly string[]; stale?: boolean }): string {
  // the daemon answers the original service's body unless freshness is asked for
  const query: string[] = [`freshness=${filter.freshness ?? true}`];
  const type = typeParam(filter.types);
  if (type !== undefined) query.push(type);
  if (filter.stale !== undefined) query.push(`stale=${filter.stale}`);
  return `current?${query.join('&')}`;
}

/** Which night report: a site day (YYYYMMDD) or a run. */
export type ReportChoice = { night: string } | { run: string };

/** The path of the night report of a site day or a run. */
export function nightReportPath(which: ReportChoice): string {
  return 'night' in which ? `reports/night/${encodeURIComponent(which.night)}` : `reports/night?run=${encodeURIComponent(which.run)}`;
}
