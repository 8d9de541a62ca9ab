import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';

// GET /safety: the safety verdict with its reasons and inputs (docs/safety.md); GET /safety/indi
// and GET /safety/watcher: the same verdict in the forms INDI's weather drivers read
// (docs/integrations.md#indi). Always 200: an unconfigured or unjudgeable verdict is an
// answer (unsafe), not an error. The query string is ignored, as GET /status ignores it.

/** Handlers of GET /safety, /safety/indi and /safety/watcher. */
export function safetyHandlers({ safety, protocols }: AppDeps): Record<'get' | 'indi' | 'watcher', Handler> {
  return {
    get: (_req, res) => sendJson(res, 200, safety.answerText()),
    indi: (_req, res) => sendJson(res, 200, protocols.indiText()),
    watcher: (_req, res) => {
      const text = protocols.watcherText();
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    },
  };
}
