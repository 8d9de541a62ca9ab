import type { ServerResponse } from 'node:http';
import { MeridianError } from '../../lib/errors.js';
import type { Freshness } from '../../lib/wire.js';
import { currentBody } from './current-body.js';
import { parseCurrentQuery } from './current-query.js';
import { sendJson, sendJsonChunks } from './respond.js';
import type { AppDeps, Handler } from './route.js';

// The current view: every type's latest reading, exactly the original service's body
// `{"current": {...}}` unless freshness is asked for (`?freshness=true`, or `?stale=`), or one
// type's reading (the envelope exactly, freshness in X-Meridian-* headers). See docs/http-api.md.

/** Handlers of GET /current (filters, ETag / If-None-Match) and GET /current/{type}. */
export function currentHandlers({ store, bootId, clock, freshness }: AppDeps): Record<'all' | 'one', Handler> {
  return {
    all: (req, res) => {
      const query = parseCurrentQuery(req.url ?? '');
      const plain = !query.freshness && query.types === undefined && query.stale === undefined;
      // with freshness the tag also changes when a type turns stale or fresh
      const etag = plain ? `"${bootId}-${store.view.version}"` : `"${bootId}-${store.view.version}-${freshness.watch.transitions}"`;
      res.setHeader('ETag', etag);
      if (noneMatch(req.headers['if-none-match'], etag)) {
        res.statusCode = 304;
        res.end();
        return;
      }
      const { view } = store;
      return sendJsonChunks(res, plain ? view.chunks() : currentBody(view.chunks(), view.bodyChunkChars, freshness.judge, clock.now(), query));
    },
    one: (req, res) => {
      const type = req.params.type!;
      const judged = freshness.judge.judge(type, clock.now());
      if (judged) setFreshnessHeaders(res, judged.freshness);
      if (!judged?.reading) throw new MeridianError('NO_READING', `There is no current reading of type ${JSON.stringify(type)}.`);
      sendJson(res, 200, judged.reading.json);
    },
  };
}

/** Whether If-None-Match names `etag`: `*`, or a list of tags compared weakly (RFC 9110 13.1.2, 8.8.3.2). */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** X-Meridian-Age (seconds; absent without a reading), X-Meridian-Max-Age and -Max-Age-From (absent: no limit), X-Meridian-Stale. */
function setFreshnessHeaders(res: ServerResponse, f: Freshness): void {
  if (f.age_s !== null) res.setHeader('X-Meridian-Age', String(f.age_s));
  if (f.max_age_s !== null) res.setHeader('X-Meridian-Max-Age', String(f.max_age_s));
  if (f.max_age_from) res.setHeader('X-Meridian-Max-Age-From', f.max_age_from);
  res.setHeader('X-Meridian-Stale', String(f.stale));
}
