import { MeridianError } from '../../lib/errors.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';

// The current view: every type's latest reading, or one type's.

/** Handlers of GET /current (with ETag / If-None-Match) and GET /current/{type}. */
export function currentHandlers({ store, bootId }: AppDeps): Record<'all' | 'one', Handler> {
  return {
    all: (req, res) => {
      const etag = `"${bootId}-${store.view.version}"`;
      res.setHeader('ETag', etag);
      if (req.headers['if-none-match'] === etag) {
        res.statusCode = 304;
        res.end();
        return;
      }
      sendJson(res, 200, store.view.body());
    },
    one: (req, res) => {
      const type = req.params.type!;
      const reading = store.view.get(type);
      if (!reading) throw new MeridianError('NO_READING', `There is no current reading of type ${JSON.stringify(type)}.`);
      sendJson(res, 200, reading.json);
    },
  };
}
