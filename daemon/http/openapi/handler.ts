import { sendJson } from '../respond.js';
import type { AppDeps, Handler } from '../route.js';
import { openApiDocument } from './document.js';

// GET /openapi.json: the document, serialized once per daemon on first request.

/** Handler of GET /openapi.json. */
export function openApiHandlers({ version }: Pick<AppDeps, 'version'>): Record<'document', Handler> {
  let body: Buffer | undefined;
  return {
    document: (_req, res) => {
      body ??= Buffer.from(JSON.stringify(openApiDocument(version)), 'utf8');
      sendJson(res, 200, body);
    },
  };
}
