import { locate } from '../history/position.js';
import { countParam, runParam, timeParam } from './history-query.js';
import { invalid, readQuery, single, typesParam, type QueryPolicy } from './query.js';
import { sendHistoryPage } from './history-page.js';
import { sendRollup } from './history-rollup.js';
import type { AppDeps, Handler } from './route.js';

// GET /history: recorded events in record order, a page at a time (docs/http-api.md).

const DEFAULT_LIMIT = 1000;
const MAX_LIMIT = 10_000;
/** A page holds about this many bytes of events at most (docs/http-api.md): more than one event only when they fit. */
export const PAGE_BYTES = 16 * 1024 * 1024;
/** The names /history takes; any other is refused (422 INVALID_QUERY). */
const POLICY: QueryPolicy = { known: ['type', 'from', 'to', 'run', 'limit', 'cursor', 'step', 'width', 'fields'], unknown: 'refuse' };

/** Handler of GET /history?type=&from=&to=&run=&limit=&cursor= (with `step`: rollup buckets, history-rollup.ts). */
export function historyHandlers({ store, history, clock, rollups }: AppDeps): Record<'get', Handler> {
  return {
    get: async (req, res) => {
      const query = readQuery(req.url ?? '', POLICY);
      const now = clock.now();
      const types = typesParam(query);
      const from = timeParam(query, 'from', now);
      const to = timeParam(query, 'to', now);
      if (from !== undefined && to !== undefined && from > to) {
        invalid(`from (${from}) is after to (${to}).`);
      }
      if (query.has('step')) return sendRollup(res, query, rollups, { types, from, to, now });
      for (const name of ['width', 'fields']) if (query.has(name)) invalid(`${name} is taken only with step.`);
      const run = runParam(query);
      const limit = countParam(query, 'limit', DEFAULT_LIMIT, MAX_LIMIT);
      const head = store.head();
      if (run !== undefined && run !== 'site' && !head.segments.some((s) => s.stream === run)) {
        invalid(`run ${run} is not in the timeline of this site directory (runs recorded before it existed are not either).`);
      }
      const cursor = single(query, 'cursor');
      const start = cursor === undefined ? { segment: 0, seq: 0 } : locate(head, cursor, 'cursor');
      // read and written a slice at a time: a client that reads nothing holds one slice (history-page.ts)
      await sendHistoryPage(res, history, { head, start, filter: { types, from, to, stream: run }, limit, maxBytes: PAGE_BYTES });
    },
  };
}
