import { readBodyText } from './body.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';
import { parseEventBody } from './validate.js';

// Recording events: POST /event.

/** Handler of POST /event: validate, record, answer the envelope as stored. */
export function eventHandlers({ store, config, logger }: AppDeps): Record<'post', Handler> {
  return {
    post: async (req, res) => {
      const event = parseEventBody(await readBodyText(req, config.maxBody));
      const recorded = await store.append(event);
      if (config.verbose) {
        const { reading } = recorded;
        logger.debug(`event type=${JSON.stringify(reading.type)} target=${recorded.target} ` +
          `${event.storePermanently ? `file=${recorded.file}` : 'ephemeral (no line written)'} ` +
          `seq=${reading.seq} run=${recorded.runId ?? '-'}${event.makeCurrent ? '' : ' make_current=false'}`);
      }
      sendJson(res, 200, recorded.reading.json);
    },
  };
}
