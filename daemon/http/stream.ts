import { createSession } from 'better-sse';
import { exactJson } from '../../lib/exact-json.js';
import { MeridianError } from '../../lib/errors.js';
import { locate } from '../history/position.js';
import { feedSubscriber } from '../stream/feed.js';
import { frame } from '../stream/frames.js';
import { Subscriber } from '../stream/subscriber.js';
import { flagParam, readQuery, single, typesParam, type QueryPolicy } from './query.js';
import type { AppDeps, Handler } from './route.js';

// GET /stream: Server-Sent Events of the current view (or a replay after a cursor), then every
// event as it is recorded (docs/http-api.md). A bad parameter is answered as JSON before the
// stream begins.

/** How long the daemon waits between keep-alive comments on an idle stream. */
export const KEEP_ALIVE_MS = 15_000;
/** The reconnection delay suggested to clients (`retry:`). */
const RETRY_MS = 1000;
/** Live frames that may wait for one slow client before it is dropped. */
const QUEUE_BYTES = 4 * 1024 * 1024;
/** How long a dropped client has to read what was already sent (and the notice) before its socket is cut. */
const DROP_GRACE_MS = 30_000;
/** The names /stream takes; any other is refused (422 INVALID_QUERY). */
const POLICY: QueryPolicy = { known: ['type', 'since', 'alarms'], unknown: 'refuse' };

/** Handler of GET /stream?type=&since=&alarms= (and the Last-Event-ID header). */
export function streamHandlers({ store, history, streams, alarms }: AppDeps): Record<'get', Handler> {
  return {
    get: async (req, res) => {
      if (streams.closed) throw new MeridianError('STORAGE_UNAVAILABLE', 'The daemon is shutting down.');
      const query = readQuery(req.url ?? '', POLICY);
      const types = typesParam(query);
      // alarm frames only when asked for: an existing client sees the stream it always saw
      const withAlarms = flagParam(query, 'alarms') ?? false;
      // a reconnecting EventSource sends Last-Event-ID with the URL it first used: the header is newer
      const header = req.headers['last-event-id'];
      const cursorText = typeof header === 'string' && header !== '' ? header : single(query, 'since');
      const what = typeof header === 'string' && header !== '' ? 'Last-Event-ID' : 'since';
      const since = cursorText === undefined ? undefined : locate(store.head(), cursorText, what);
      await createSession(req, res, { keepAlive: KEEP_ALIVE_MS, retry: RETRY_MS, trustClientEventId: false });
      const sub = new Subscriber(res, types, { queueBytes: QUEUE_BYTES, dropGraceMs: DROP_GRACE_MS }, withAlarms);
      const who = `${req.socket.remoteAddress ?? '-'}:${req.socket.remotePort ?? '-'}`;
      const prelude = () => (withAlarms ? alarms.list().map((a) => frame('alarm', exactJson(a))).join('') : '');
      await feedSubscriber({ store, history, hub: streams }, sub, since, who, prelude);
    },
  };
}
