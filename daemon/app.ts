import type { ServerResponse } from 'node:http';
import polka, { type Request } from 'polka';
import type { DaemonConfig } from '../lib/config.js';
import { MeridianError } from '../lib/errors.js';
import type { Logger } from '../lib/log.js';
import type { Clock } from '../lib/time.js';
import { readJsonBody } from './body.js';
import { createGuard, fromLoopback } from './guard.js';
import type { TelemetryStore } from './storage/store.js';
import { parseEventBody, parseRunStartBody } from './validate.js';

// The HTTP surface: routes, the guard, and the one error path. Building it never listens.

/** What the app is built from. */
export interface AppDeps {
  config: DaemonConfig;
  store: TelemetryStore;
  logger: Logger;
  clock: Clock;
  version: string;
  /** Called once /shutdown has been answered. */
  onShutdown: () => void;
  /** Distinguishes ETags of this process from those of an earlier one. */
  bootId: string;
  /** What GET /status reports about the process: its id, start time (ts) and bound address. */
  process: { pid: number; startedAt: string; address: () => string };
}

const ROUTES: Record<string, string[]> = {
  '/health': ['GET'], '/ready': ['GET'], '/run': ['GET'], '/run/start': ['POST'], '/run/stop': ['POST'],
  '/event': ['POST'], '/current': ['GET'], '/shutdown': ['POST'], '/status': ['GET'],
};

/** Build the polka app of the daemon. */
export function buildApp(deps: AppDeps) {
  const { config, store, logger, clock } = deps;
  const guard = createGuard(config.host, config.token);

  const app = polka({
    onError: (err, req, res) => sendError(res, err, logger, req),
    onNoMatch: (req, res) => {
      const allowed = ROUTES[req.path] ?? (req.path.startsWith('/current/') ? ['GET'] : undefined);
      if (allowed && !allowed.includes(req.method)) {
        res.setHeader('Allow', allowed.join(', '));
        throw new MeridianError('METHOD_NOT_ALLOWED', `${req.path} does not accept ${req.method}; use ${allowed.join(' or ')}.`);
      }
      if (allowed) {
        // GET /current/a/b: a type with a slash must be sent encoded (/current/a%2Fb)
        throw new MeridianError('NOT_FOUND', `There is no ${req.path} here; a type containing "/" must be URL-encoded (%2F).`);
      }
      throw new MeridianError('NOT_FOUND', `There is no ${req.path} here; see docs/http-api.md for the endpoints.`);
    },
  });

  app.get('/health', (_req, res) => sendJson(res, 200, '{"ok":true}'));

  app.get('/ready', (_req, res) => sendJson(res, 200,
    JSON.stringify({ ready: true, run_active: store.activeRun() !== undefined, version: deps.version })));

  app.get('/status', (_req, res) => sendJson(res, 200, JSON.stringify({
    version: deps.version, pid: deps.process.pid, started_at: deps.process.startedAt, address: deps.process.address(),
    run_id: store.activeRun()?.run_id ?? null, types: store.view.size,
  })));

  app.get('/run', (_req, res) => {
    const run = store.activeRun();
    if (!run) throw new MeridianError('NO_ACTIVE_RUN', 'No run is active.');
    sendJson(res, 200, JSON.stringify(run));
  });

  app.post('/run/start', async (req, res) => {
    const request = parseRunStartBody(await readJsonBody(req, config.maxBody));
    sendJson(res, 200, JSON.stringify(store.startRun(request)));
  });

  app.post('/run/stop', (_req, res) => sendJson(res, 200, JSON.stringify(store.stopRun())));

  const postEvent = async (req: Request, res: ServerResponse) => {
    const event = parseEventBody(await readJsonBody(req, config.maxBody));
    const recorded = await store.append(event);
    if (config.verbose) {
      const { envelope } = recorded;
      logger.debug(`event type=${JSON.stringify(envelope.type)} target=${recorded.target} file=${recorded.file} ` +
        `seq=${envelope.seq} run=${envelope.meta.run_id ?? '-'}${event.makeCurrent ? '' : ' make_current=false'}`);
    }
    sendJson(res, 200, recorded.json);
  };
  app.post('/event', postEvent);

  app.get('/current', (req, res) => {
    const etag = `"${deps.bootId}-${store.view.version}"`;
    res.setHeader('ETag', etag);
    if (req.headers['if-none-match'] === etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    sendJson(res, 200, store.view.body());
  });

  const getReading = (type: string, res: ServerResponse) => {
    const reading = store.view.get(type);
    if (!reading) throw new MeridianError('NO_READING', `There is no current reading of type ${JSON.stringify(type)}.`);
    sendJson(res, 200, reading.json);
  };
  app.get('/current/:type', (req, res) => getReading(req.params.type!, res));

  app.post('/shutdown', (req, res) => {
    if (!fromLoopback(req) && !guard.hasToken(req)) {
      throw new MeridianError('FORBIDDEN', '/shutdown is accepted from loopback clients or with the token.');
    }
    res.setHeader('Connection', 'close');
    sendJson(res, 200, '{"shutting_down":true}');
    res.on('finish', () => deps.onShutdown());
  });

  // The request listener: the guard (and access log) on every request, then the route.
  // Profiles of POST /event showed polka's URL parse, route search and async handler loop
  // as ~1 us of ~25 us per request, so the two hot routes go straight to their handlers
  // (same handlers, same error path); everything else goes through polka.
  const handler = (req: Request, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    try {
      if (config.accessLogs) {
        const started = clock.now();
        res.on('finish', () => logger.info(`${req.socket.remoteAddress ?? '-'} ${req.method} ${req.url} ${res.statusCode} ${clock.now() - started}ms`));
      }
      guard.check(req, path);
      if (req.method === 'POST' && path === '/event') {
        postEvent(req, res).catch((err: unknown) => sendError(res, err, logger, req));
        return;
      }
      // a plain type (no %-escape, no further segment) needs no decoding: what polka would give
      if (req.method === 'GET' && path.startsWith('/current/') && path.length > 9 && !/[/%]/.test(path.slice(9))) {
        getReading(path.slice(9), res);
        return;
      }
    } catch (err) {
      sendError(res, err, logger, req);
      return;
    }
    // polka's own top-level call: no outer next (its errors go to onError)
    app.handler(req, res, undefined as never);
  };
  return { app, handler };
}

function sendJson(res: ServerResponse, status: number, body: string | Buffer): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': typeof body === 'string' ? Buffer.byteLength(body) : body.length });
  res.end(body);
}

function sendError(res: ServerResponse, err: unknown, logger: Logger, req: Request): void {
  let error: MeridianError;
  if (err instanceof MeridianError) {
    error = err;
  } else {
    logger.error(`unexpected error on ${req.method} ${req.url}`, err);
    error = new MeridianError('INTERNAL', 'An unexpected error occurred; it has been logged.');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error.code === 'BODY_TOO_LARGE') {
    // the rest of the body is not read: close the connection once this answer is out
    const socket = req.socket;
    res.setHeader('Connection', 'close');
    res.on('finish', () => socket?.destroy());
  }
  sendJson(res, error.status, JSON.stringify({ detail: error.message, code: error.code }));
}
