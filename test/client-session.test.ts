import http from 'node:http';
import type net from 'node:net';
import got from 'got';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, TelemetryClientError, TelemetryConnectionError } from '../client/index.js';
import type { DaemonFlags } from '../lib/config.js';
import { freePort, type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { withSilentListener } from './helpers/listener.js';
import { rejection } from './helpers/rejection.js';

// The transport: an injected got session (hooks, headers, agent kept), keep-alive by default,
// and exactly one attempt per call whatever the session says.

const TOKEN = 'dome-token';

function withDaemon(flags: DaemonFlags, fn: (d: TestDaemon) => Promise<void>): Promise<void> {
  return withTestDaemon({ flags }, fn);
}

// A session that counts attempts and retries, and would retry twice, quickly, if let.
function countingSession(headers: Record<string, string> = {}) {
  const counts = { requests: 0, retries: 0 };
  const session = got.extend({
    headers,
    retry: { limit: 2, backoffLimit: 1 },
    hooks: { beforeRequest: [() => { counts.requests++; }], beforeRetry: [() => { counts.retries++; }] },
  });
  return { session, counts };
}

test('session: its hooks run once per call and a header it sets reaches the daemon', () => withDaemon({ token: TOKEN }, async (d) => {
  const { session, counts } = countingSession({ authorization: `Bearer ${TOKEN}` });
  const client = new TelemetryClient({ baseUrl: d.url, session, env: {} });
  assert.equal(await client.health(), { ok: true });
  assert.is((await client.postEvent('weather', 1)).seq, 1);
  assert.is((await client.currentEvent('weather')).seq, 1);
  assert.equal(Object.keys((await client.current()).current), ['weather']);
  assert.is(counts.requests, 4);
  // the same calls without the session's header are refused: the header is what let them in
  const bare = new TelemetryClient({ baseUrl: d.url, env: {} });
  const error = await rejection(bare.postEvent('weather', 2)) as TelemetryClientError;
  assert.equal([error.statusCode, error.code], [401, 'UNAUTHORIZED']);
}));

test('keep-alive: sequential calls share one connection; a session agent without keep-alive is kept as it is', () => withDaemon({}, async (d) => {
  let connections = 0;
  d.daemon.server.on('connection', () => { connections++; });
  const client = new TelemetryClient({ baseUrl: d.url, env: {} });
  await client.health();
  await client.ready();
  await client.postEvent('weather', 1);
  assert.is(connections, 1, 'the default client reuses its connection');

  connections = 0;
  const session = got.extend({ agent: { http: new http.Agent({ keepAlive: false }) } });
  const closing = new TelemetryClient({ baseUrl: d.url, session, env: {} });
  await closing.health();
  await closing.ready();
  assert.is(connections, 2, 'the session agent opens one connection per call');
}));

test('no retries: a reset or refused GET is one attempt with the client; the same session used directly tries a reset one three times', async () => {
  // the control is a reset connection, which got retries on every Node: on Node >= 24.20 got 14
  // gives up on a refused one after one attempt (with a raw ERR_SOCKET_CLOSED_BEFORE_CONNECTION)
  await withSilentListener(async ({ port }) => {
    const direct = countingSession();
    await rejection(direct.session(`http://127.0.0.1:${port}/health`));
    assert.equal(direct.counts, { requests: 3, retries: 2 }, 'the hooks count attempts');

    const viaClient = countingSession();
    const error = await rejection(new TelemetryClient({ host: '127.0.0.1', port, session: viaClient.session, env: {} }).health());
    assert.instance(error, TelemetryConnectionError);
    assert.equal(viaClient.counts, { requests: 1, retries: 0 }, 'reset');
  }, (socket) => socket.destroy());

  const refused = countingSession();
  const error = await rejection(new TelemetryClient({ host: '127.0.0.1', port: await freePort(), session: refused.session, env: {} }).health());
  assert.instance(error, TelemetryConnectionError);
  assert.equal(refused.counts, { requests: 1, retries: 0 }, 'refused');
});

test('no retries: a GET answered 503 reaches the server once (got alone sends it three times)', async () => {
  let served = 0;
  const body = JSON.stringify({ detail: 'Could not write to site_20260317.ndjson (ENOSPC); the event was not recorded.', code: 'STORAGE_UNAVAILABLE' });
  const server = http.createServer((_req, res) => {
    served++;
    res.writeHead(503, { 'content-type': 'application/json' }).end(body);
  });
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
  try {
    const direct = countingSession();
    await rejection(direct.session(`http://127.0.0.1:${port}/current`));
    assert.is(served, 3, 'got retries a 503 GET by default');

    served = 0;
    const { session, counts } = countingSession();
    const error = await rejection(new TelemetryClient({ host: '127.0.0.1', port, session, env: {} }).current()) as TelemetryClientError;
    assert.is(served, 1);
    assert.equal(counts, { requests: 1, retries: 0 });
    assert.instance(error, TelemetryClientError);
    assert.not.instance(error, TelemetryConnectionError);
    assert.equal([error.statusCode, error.code, error.detail],
      [503, 'STORAGE_UNAVAILABLE', 'Could not write to site_20260317.ndjson (ENOSPC); the event was not recorded.']);

    // an error answer that is not JSON still gives a status and a readable detail
    served = 0;
    server.removeAllListeners('request');
    server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      served++;
      res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>proxy error</h1>');
    });
    const html = await rejection(new TelemetryClient({ host: '127.0.0.1', port, env: {} }).ready()) as TelemetryClientError;
    assert.is(served, 1);
    assert.equal([html.statusCode, html.code, html.detail], [500, undefined, 'Internal Server Error']);
    assert.is(html.message, `GET http://127.0.0.1:${port}/ready answered 500: Internal Server Error`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a session cannot turn off thrown errors or full responses', () => withDaemon({}, async (d) => {
  const session = got.extend({ throwHttpErrors: false, resolveBodyOnly: true, responseType: 'text' });
  const client = new TelemetryClient({ baseUrl: d.url, session, env: {} });
  assert.equal(await client.postEvent('weather', { t: 1 }, { meta: {} }), (await client.current()).current.weather);
  const error = await rejection(client.getRun()) as TelemetryClientError;
  assert.instance(error, TelemetryClientError);
  assert.equal([error.statusCode, error.code], [404, 'NO_ACTIVE_RUN']);
}));

test.run();
