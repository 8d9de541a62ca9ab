import { readJsonBody } from './body.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';
import { parseEventBody } from './validate.js';

// Recording events: POST /event.

/** Handler of POST /event: validate, record, answer the envelope as stored. */
export function eventHandlers({ store, config, logger }: AppDeps): Record<'post', Handler> {
  return {
    post: async (req, res) => {
      const event = parseEventBody(await readJsonBody(req, config.maxBody));
      const recorded = await store.append(event);
      if (config.verbose) {
        const { envelope } = recorded;
        logger.debug(`event type=${JSON.stringify(envelope.type)} target=${recorded.target} file=${recorded.file} ` +
          `seq=${envelope.seq} run=${envelope.meta.run_id ?? '-'}${event.makeCurrent ? '' : ' make_current=false'}`);
      }
      sendJson(res, 200, recorded.json);
    },
  };
}
