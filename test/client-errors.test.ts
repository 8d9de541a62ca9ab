import got, { HTTPError, RequestError } from 'got';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, TelemetryClientError, TelemetryConnectionError } from '../client/index.js';
import type { DaemonFlags } from '../lib/config.js';
import type { JsonValue } from '../lib/wire.js';
import { freePort, withTestDaemon } from './helpers/daemon.js';
import { withSilentListener } from './helpers/listener.js';
import { rejection } from './helpers/rejection.js';

// What the client rejects with: TelemetryClientError for an error answer (status, code, detail
// from the daemon), TelemetryConnectionError (statusCode 0) when nothing answers.

const TOKEN = 'dome-token';

type Call = (client: TelemetryClient) => Promise<unknown>;

// [name, daemon flags, client token, the call (after any setup), method, path, status, code, detail]
const answers: Array<[string, DaemonFlags, string | undefined, Call, string, string, number, string, string]> = [
  ['getRun without a run', {}, undefined, (c) => c.getRun(), 'GET', 'run', 404, 'NO_ACTIVE_RUN', 'No run is active.'],
  ['stopRun without a run', {}, undefined, (c) => c.stopRun(), 'POST', 'run/stop', 404, 'NO_ACTIVE_RUN', 'No run is active.'],
  ['currentEvent of an unknown type', {}, undefined, (c) => c.currentEvent('rain'), 'GET', 'current/rain', 404, 'NO_READING',
    'There is no current reading of type "rain".'],
  ['currentEvent of an unknown type with a space', {}, undefined, (c) => c.currentEvent('dome status'), 'GET', 'current/dome%20status', 404,
    'NO_READING', 'There is no current reading of type "dome status".'],
  ['startRun while a run is active', {}, undefined, async (c) => { await c.startRun({ runId: 'a' }); return c.startRun({ runId: 'b' }); },
    'POST', 'run/start', 409, 'RUN_ACTIVE', 'Run a is already active; stop it first.'],
  ['startRun with an unsafe run id', {}, undefined, (c) => c.startRun({ runId: '../x' }), 'POST', 'run/start', 422, 'INVALID_RUN',
    'run_id must be 1-128 letters, digits, \'.\', \'_\' or \'-\' (and not \'.\' or \'..\'); got "../x"'],
  ['startRun with a runDir outside the site directory', {}, undefined, (c) => c.startRun({ runDir: '../out' }), 'POST', 'run/start', 422,
    'INVALID_RUN', 'run_dir "../out" must name a directory inside the site directory'],
  ['postEvent with an empty type', {}, undefined, (c) => c.postEvent('', 1), 'POST', 'event', 422, 'INVALID_BODY', 'type must not be empty.'],
  ['postEvent with a long type', {}, undefined, (c) => c.postEvent('x'.repeat(257), 1), 'POST', 'event', 422, 'INVALID_BODY',
    'type must be at most 256 characters; got 257.'],
  ['postEvent with a control character', {}, undefined, (c) => c.postEvent('a\nb', 1), 'POST', 'event', 422, 'INVALID_BODY',
    'type must not contain control characters.'],
  ['postEvent with a number as type (untyped caller)', {}, undefined, (c) => c.postEvent(5 as unknown as string, 1), 'POST', 'event', 422,
    'INVALID_BODY', 'type must be a string; got number 5.'],
  ['postEvent with undefined data (untyped caller)', {}, undefined, (c) => c.postEvent('w', undefined as unknown as JsonValue), 'POST', 'event',
    422, 'INVALID_BODY', 'data is required (null counts as given).'],
  ['postEvent with makeCurrent as text (untyped caller)', {}, undefined, (c) => c.postEvent('w', 1, { makeCurrent: 'no' as unknown as boolean }),
    'POST', 'event', 422, 'INVALID_BODY', 'make_current must be true or false; got string "no".'],
  ['postEvent with a body past --max-body', { maxBody: 64 }, undefined, (c) => c.postEvent('w', 'x'.repeat(100)), 'POST', 'event', 413,
    'BODY_TOO_LARGE', 'The body is larger than the limit of 64 bytes.'],
  ['a token daemon without the token', { token: TOKEN }, undefined, (c) => c.current(), 'GET', 'current?freshness=true', 401, 'UNAUTHORIZED',
    'This daemon needs a token: send Authorization: Bearer <token>.'],
  ['a token daemon with a wrong token', { token: TOKEN }, 'wrong', (c) => c.shutdown(), 'POST', 'shutdown', 403, 'FORBIDDEN', 'The token is wrong.'],
];

for (const [name, flags, token, call, method, path, statusCode, code, detail] of answers) {
  test(`error answer: ${name} -> ${statusCode} ${code}`, () => withTestDaemon({ flags }, async (d) => {
    const error = await rejection(call(new TelemetryClient({ baseUrl: d.url, token, env: {} })));
    const url = `${d.url}/${path}`;
    assert.instance(error, TelemetryClientError);
    assert.not.instance(error, TelemetryConnectionError);
    assert.instance(error, Error);
    const e = error as TelemetryClientError;
    assert.equal([e.name, e.statusCode, e.code, e.detail, e.method, e.url], ['TelemetryClientError', statusCode, code, detail, method, url]);
    assert.is(e.message, `${method} ${url} answered ${statusCode} ${code}: ${detail}`);
    assert.instance(e.cause, HTTPError);
    assert.is((e.cause as HTTPError).response.statusCode, statusCode);
  }));
}

test('currentEvent of a missing dot type answers as the daemon does for any other type', () => withTestDaemon({}, async (d) => {
  const error = await rejection(new TelemetryClient({ baseUrl: d.url, env: {} }).currentEvent('..')) as TelemetryClientError;
  assert.instance(error, TelemetryClientError);
  assert.equal([error.statusCode, error.code, error.detail, error.method, error.url],
    [404, 'NO_READING', 'There is no current reading of type "..".', 'GET', `${d.url}/current`]);
  assert.is(error.message, `GET ${d.url}/current answered 404 NO_READING: There is no current reading of type "..".`);
}));

// [name, call, method, path]: every method meets the same refusal
const calls: Array<[string, Call, string, string]> = [
  ['health', (c) => c.health(), 'GET', 'health'],
  ['ready', (c) => c.ready(), 'GET', 'ready'],
  ['getRun', (c) => c.getRun(), 'GET', 'run'],
  ['startRun', (c) => c.startRun({ runId: 'a' }), 'POST', 'run/start'],
  ['stopRun', (c) => c.stopRun(), 'POST', 'run/stop'],
  ['postEvent', (c) => c.postEvent('weather', 1), 'POST', 'event'],
  ['current', (c) => c.current(), 'GET', 'current?freshness=true'],
  ['currentEvent', (c) => c.currentEvent('dome status'), 'GET', 'current/dome%20status'],
  ['currentEvent of a dot type', (c) => c.currentEvent('.'), 'GET', 'current'],
  ['shutdown', (c) => c.shutdown(), 'POST', 'shutdown'],
];

test('a refused connection rejects every method with TelemetryConnectionError naming the address and the reason', async () => {
  const port = await freePort();
  const client = new TelemetryClient({ host: '127.0.0.1', port, env: {} });
  for (const [name, call, method, path] of calls) {
    const error = await rejection(call(client)) as TelemetryConnectionError;
    assert.instance(error, TelemetryConnectionError, name);
    assert.instance(error, TelemetryClientError, name);
    assert.equal([error.name, error.statusCode, error.code, error.reason, error.timedOut, error.method, error.url],
      ['TelemetryConnectionError', 0, undefined, 'ECONNREFUSED', false, method, `http://127.0.0.1:${port}/${path}`], name);
    assert.is(error.message, `no telemetry daemon at http://127.0.0.1:${port}: connection refused (ECONNREFUSED; ${method} /${path})`, name);
    assert.is(error.detail, error.message, name);
    assert.instance(error.cause, RequestError, name);
  }
});

test('a listener that never answers: TelemetryConnectionError with timedOut after the timeout, one attempt', () => withSilentListener(async ({ port, connections }) => {
  const client = new TelemetryClient({ host: '127.0.0.1', port, timeout: 0.2, env: {} });
  for (const [call, what] of [[() => client.ready(), 'GET /ready'], [() => client.postEvent('weather', 1), 'POST /event']] as const) {
    const started = performance.now();
    const error = await rejection(call()) as TelemetryConnectionError;
    const elapsed = performance.now() - started;
    assert.instance(error, TelemetryConnectionError, what);
    assert.equal([error.statusCode, error.reason, error.timedOut], [0, 'ETIMEDOUT', true], what);
    assert.is(error.message, `the telemetry daemon at http://127.0.0.1:${port} did not answer within 0.2 s (${what})`);
    assert.ok(elapsed >= 190, `gave up after ${elapsed} ms, before the 200 ms timeout`);
  }
  assert.is(connections(), 2, 'one connection per call: a timed-out GET is not retried');
}));

test('close() ends a request in flight at once: TelemetryConnectionError, not a timeout', () => withSilentListener(async ({ port, connected }) => {
  const client = new TelemetryClient({ host: '127.0.0.1', port, timeout: 30, env: {} });
  const pending = rejection(client.ready());
  await connected(); // connected, waiting for an answer
  client.close();
  const error = await pending as TelemetryConnectionError;
  assert.instance(error, TelemetryConnectionError);
  assert.equal([error.statusCode, error.reason, error.timedOut], [0, 'ECONNRESET', false]);
  assert.is(error.message, `no telemetry daemon at http://127.0.0.1:${port}: connection reset (ECONNRESET; GET /ready)`);
}));

test('a name that does not resolve (.invalid, RFC 6761) is a TelemetryConnectionError, not a timeout', async () => {
  const client = new TelemetryClient({ host: 'meridian-daemon.invalid', port: 6562, timeout: 5, env: {} });
  const error = await rejection(client.health()) as TelemetryConnectionError;
  assert.instance(error, TelemetryConnectionError);
  // ENOTFOUND from a resolver that answers NXDOMAIN; EAI_AGAIN when no resolver is reachable at all
  assert.ok(error.reason === 'ENOTFOUND' || error.reason === 'EAI_AGAIN', error.reason);
  assert.equal([error.statusCode, error.timedOut], [0, false]);
  assert.is(error.message, `no telemetry daemon at http://meridian-daemon.invalid:6562: host name not resolved (${error.reason}; GET /health)`);
});

test('something that does not speak HTTP is a TelemetryConnectionError', () => withSilentListener(async ({ port }) => {
  const error = await rejection(new TelemetryClient({ host: '127.0.0.1', port, env: {} }).health()) as TelemetryConnectionError;
  assert.instance(error, TelemetryConnectionError);
  assert.equal([error.statusCode, error.reason, error.timedOut], [0, 'HPE_INVALID_CONSTANT', false]);
  assert.is(error.message, `no telemetry daemon at http://127.0.0.1:${port}: the answer is not HTTP (HPE_INVALID_CONSTANT; GET /health)`);
}, (socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n')));

test('data JSON cannot hold rejects with its TypeError before anything is sent', () => withTestDaemon({}, async (d) => {
  let requests = 0;
  const session = got.extend({ hooks: { beforeRequest: [() => { requests++; }] } });
  const client = new TelemetryClient({ baseUrl: d.url, session, env: {} });
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const cases: Array<[string, unknown, RegExp]> = [
    ['BigInt', 1n, /^Do not know how to serialize a BigInt$/],
    ['cycle', cycle, /^Converting circular structure to JSON/],
  ];
  for (const [name, data, message] of cases) {
    const error = await rejection(client.postEvent('weather', data as JsonValue));
    assert.instance(error, TypeError, name);
    assert.not.instance(error, TelemetryClientError, name);
    assert.match((error as Error).message, message, name);
  }
  assert.is(requests, 0);
  assert.equal(await client.current(), { current: {}, freshness: {} });
}));

test('an error thrown by a session hook is passed on, not taken for "no daemon"', () => withTestDaemon({}, async (d) => {
  const session = got.extend({ hooks: { beforeRequest: [() => { throw new Error('hook broke'); }] } });
  const error = await rejection(new TelemetryClient({ baseUrl: d.url, session, env: {} }).health());
  assert.not.instance(error, TelemetryClientError);
  assert.instance(error, RequestError);
  assert.is((error as RequestError).message, 'hook broke');
}));

test.run();
