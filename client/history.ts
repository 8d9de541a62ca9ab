import type { DamagedFile, Envelope } from '../lib/wire.js';
import { typeParam } from './type-query.js';

// client.history(): GET /history as an async iterator over pages, following next_cursor.

/** What `history()` asks for; every field optional. */
export interface HistoryOptions {
  /** Only these event types (default every type). */
  types?: readonly string[];
  /** From this time, inclusive: a Date, an ISO-8601 text with a zone, or relative such as `-2h`. */
  from?: Date | string;
  /** Up to this time, exclusive (same forms as `from`). */
  to?: Date | string;
  /** Only this run's events (a run id), or `site` for the site's only. */
  run?: string;
  /** Events per page (1-10000, default 1000 on the daemon). */
  limit?: number;
  /** Start after this cursor (a page's `nextCursor`, or a stream event's cursor). */
  cursor?: string;
}

/** One page of history: events in record order and the cursor of the next page (null: no more now). */
export interface HistoryPage {
  events: Envelope[];
  nextCursor: string | null;
  /** Files this page's range reached that are damaged (what they still hold is in `events`); absent when none. */
  damaged?: DamagedFile[];
}

/** The query string of GET /history. */
export function historyQuery(options: HistoryOptions, cursor: string | undefined): string {
  const params: string[] = [];
  const type = typeParam(options.types);
  if (type !== undefined) params.push(type);
  for (const name of ['from', 'to'] as const) {
    const value = options[name];
    if (value !== undefined) params.push(`${name}=${encodeURIComponent(value instanceof Date ? value.toISOString() : value)}`);
  }
  if (options.run !== undefined) params.push(`run=${encodeURIComponent(options.run)}`);
  if (options.limit !== undefined) params.push(`limit=${options.limit}`);
  if (cursor !== undefined) params.push(`cursor=${encodeURIComponent(cursor)}`);
  return params.join('&');
}

/** A page of history with each event's text as the daemon sent it (`texts[i]` is `events[i]`). */
export interface HistoryTextPage extends HistoryPage {
  texts: string[];
}

/** Fetch page after page until the daemon says there is no more (`nextCursor` null). */
export async function* historyPages<Page extends HistoryPage>(get: (query: string) => Promise<Page>,
  options: HistoryOptions): AsyncGenerator<Page, void, undefined> {
  let cursor = options.cursor;
  for (;;) {
    const page = await get(historyQuery(options, cursor));
    yield page;
    if (page.nextCursor === null) return;
    cursor = page.nextCursor;
  }
}
