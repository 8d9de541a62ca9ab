import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import polka, { type Request } from 'polka';
import { MeridianError } from '../../lib/errors.js';
import { UNMATCHED_ROUTE } from '../metrics/daemon-metrics.js';
import { absoluteTarget, createGuard } from './guard.js';
import { sendError } from './respond.js';
import type { AppDeps, Handler, Route } from './route.js';
import { routeTable } from './routes.js';

// The HTTP surface built from the route table: polka's registrations, the 405 answers and
// the fast lane, the guard and access log on every request. Building it never listens.

export type { AppDeps } from './route.js';

/** A fast-lane route with a last path parameter: `/current/:type` is prefix `/current/`, param `type`. */
interface ParamLane {
  method: string;
  prefix: string;
  param: string;
  handler: Handler;
}

/** Build the polka app of the daemon and the request listener that fronts it. */
export function buildApp(deps: AppDeps) {
  const { config, logger, clock, metrics } = deps;
  const guard = createGuard(config);
  // each handler notes its route pattern, the route label of the request metrics
  const routeOf = new WeakMap<ServerResponse, string>();
  const routes = routeTable(deps, guard).map(([method, path, handle, lane]): Route =>
    [method, path, (req, res) => { routeOf.set(res, path); return handle(req, res); }, lane]);
  const fail = (res: ServerResponse, err: unknown, req: Request) => metrics.rejected(sendError(res, err, logger, req));

  const app = polka({
    onError: (err, req, res) => fail(res, err, req),
    onNoMatch: (req, res) => { throw noMatch(routes, req, res); },
  });
  for (const [method, path, handler] of routes) app.add(method as 'GET', path, handler);

  // Profiles of POST /event showed polka's URL parse, route search and async handler loop
  // as ~1 us of ~25 us per request, so the fast rows go straight to their handlers (same
  // handlers, same error path); everything else goes through polka.
  const exact = new Map<string, Handler>();
  const params: ParamLane[] = [];
  for (const [method, path, handler, lane] of routes) {
    if (lane !== 'fast') continue;
    const colon = path.indexOf('/:');
    if (colon === -1) exact.set(`${method} ${path}`, handler);
    else params.push({ method, prefix: path.slice(0, colon + 1), param: path.slice(colon + 2), handler });
  }
  const fastLane = (req: Request, path: string): Handler | undefined => {
    const handler = exact.get(`${req.method} ${path}`);
    if (handler) return handler;
    for (const lane of params) {
      // a plain segment (no %-escape, no further segment) needs no decoding: what polka would give
      if (req.method === lane.method && path.length > lane.prefix.length && path.startsWith(lane.prefix)
        && !/[/%]/.test(path.slice(lane.prefix.length))) {
        req.params = { [lane.param]: path.slice(lane.prefix.length) };
        return lane.handler;
      }
    }
    return undefined;
  };

  const handler = (req: Request, res: ServerResponse): void => {
    let url = req.url ?? '/';
    const absolute = absoluteTarget(url);
    if (absolute) {
      // served as its path; its authority is the host the guard judges (RFC 9112 3.2.2)
      req.url = url = absolute.target;
      req.headers.host = absolute.authority;
    }
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const started = performance.now();
    res.on('finish', () => metrics.requestDone(routeOf.get(res) ?? patternOf(routes, path), req.method,
      res.statusCode, (performance.now() - started) / 1000));
    try {
      if (config.accessLogs) {
        const started = clock.now();
        res.on('finish', () => logger.info(`${req.socket.remoteAddress ?? '-'} ${req.method} ${req.url} ${res.statusCode} ${clock.now() - started}ms`));
      }
      guard.check(req, path);
      const problem = pathProblem(path);
      if (problem) throw problem;
      const fast = fastLane(req, path);
      if (fast) {
        const pending = fast(req, res);
        if (pending) pending.catch((err: unknown) => fail(res, err, req));
        return;
      }
    } catch (err) {
      fail(res, err, req);
      return;
    }
    // polka's own top-level call: no outer next (its errors go to onError)
    app.handler(req, res, undefined as never);
  };
  return { app, handler, routes };
}

/**
 * A 404 for a path no route can take whatever the method, naming what is wrong with it: an
 * empty segment (`/alarms//ack`: an id is never empty) or a broken escape (`/alarms/%ZZ/ack`:
 * a parameter would otherwise be taken as its raw text).
 */
function pathProblem(path: string): MeridianError | undefined {
  if (path.length > 1 && path.slice(1, path.endsWith('/') ? -1 : undefined).split('/').includes('')) {
    return new MeridianError('NOT_FOUND', `There is no ${path} here: a segment of the path is empty (two slashes in a row).`);
  }
  if (!path.includes('%')) return undefined;
  const broken = path.split('/').find((segment) => { try { decodeURIComponent(segment); return false; } catch { return true; } });
  if (broken === undefined) return undefined;
  return new MeridianError('NOT_FOUND', `There is no ${path} here: ${broken} is not valid percent-encoding (% and two hex digits, of UTF-8).`);
}

/** The route label of a request no handler saw (refused by the guard, 404, 405): the pattern its path matches, else UNMATCHED_ROUTE. */
function patternOf(routes: readonly Route[], path: string): string {
  return matchingRoutes(routes, path)[0]?.[1] ?? UNMATCHED_ROUTE;
}

/**
 * The routes whose pattern matches `path`, whatever their method: those of as many segments
 * as the path first; else a last parameter taking the rest (GET /current/a/b: the 404 explains %2F).
 */
function matchingRoutes(routes: readonly Route[], path: string): readonly Route[] {
  const matching = routesOver(routes, path);
  const segments = path.split('/').length;
  const whole = matching.filter(([, pattern]) => pattern.split('/').length === segments);
  return whole.length > 0 ? whole : matching;
}

function routesOver(routes: readonly Route[], path: string): readonly Route[] {
  return routes.filter(([, pattern]) => {
    if (!pattern.includes('/:')) return pattern === path;
    // a parameter inside the path is one segment; a last one may hold more (GET /current/a/b: the 404 explains %2F)
    const want = pattern.split('/');
    const got = path.split('/');
    if (got.length < want.length || (got.length > want.length && !want.at(-1)!.startsWith(':'))) return false;
    return want.every((w, i) => (w.startsWith(':') ? i === want.length - 1 || got[i] !== '' : w === got[i]));
  });
}

/** The error for a request no route matched: 405 (with Allow) when the path exists with other methods, else 404. */
function noMatch(routes: readonly Route[], req: Request, res: ServerResponse): MeridianError {
  const { method, path } = req;
  const matching = matchingRoutes(routes, path);
  const allowed = [...new Set(matching.map(([m]) => m))];
  if (allowed.length > 0 && !allowed.includes(method)) {
    res.setHeader('Allow', allowed.join(', '));
    return new MeridianError('METHOD_NOT_ALLOWED', `${path} does not accept ${method}; use ${allowed.join(' or ')}.`);
  }
  if (allowed.length > 0) {
    // GET /current/a/b: a parameter with a slash must be sent encoded (/current/a%2Fb)
    const param = /\/:(\w+)/.exec(matching[0]![1])![1]!;
    return new MeridianError('NOT_FOUND', `There is no ${path} here; ${/^[aeiou]/.test(param) ? 'an' : 'a'} ${param} containing "/" must be URL-encoded (%2F).`);
  }
  return new MeridianError('NOT_FOUND', `There is no ${path} here; see docs/http-api.md for the endpoints.`);
}
