import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';

// GET /safety: the safety verdict with its reasons and inputs (docs/safety.md). Always 200:
// an unconfigured or unjudgeable verdict is an answer (unsafe), not an error. The query string
// is ignored, as GET /status ignores it.

/** Handlers of GET /safety. */
export function safetyHandlers({ safety }: AppDeps): Record<'get', Handler> {
  return {
    get: (_req, res) => sendJson(res, 200, safety.answerText()),
  };
}
