// The paths (with their queries) of requests whose spelling is more than a name.

/** Which night report: a site day (YYYYMMDD) or a run. */
export type ReportChoice = { night: string } | { run: string };

/** The path of POST /events with its query. */
export function batchPath(partial: boolean | undefined): string {
  return partial ? 'events?partial=true' : 'events';
}

/** The path of the night report of a site day or a run. */
export function nightReportPath(which: ReportChoice): string {
  return 'night' in which ? `reports/night/${encodeURIComponent(which.night)}` : `reports/night?run=${encodeURIComponent(which.run)}`;
}
