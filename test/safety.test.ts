import net from 'node:net';
import os from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, TelemetryClientError } from '../client/index.js';
import { resolveDaemonConfig } from '../lib/config.js';
import { silentLogger } from '../lib/log.js';
import { systemClock } from '../lib/time.js';
import { startDaemon, StartupError } from '../daemon/server.js';
import { spawn, spawnSync } from 'node:child_process';
import { cleanEnv, freePort, MERIDIAN_BIN, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The security rules of docs/operations.md ("Security"), checked from outside the process.

const TOKEN = 's3cret-token';

test('with a token: 401 without it, 403 with a wrong one, /health and /ready open', () => withTestDaemon({ flags: { token: TOKEN } }, async (d) => {
  const cases: Array<[string, string, Record<string, string>, number, string | undefined]> = [
    ['no header', '/current', {}, 401, 'UNAUTHORIZED'],
    ['wrong token', '/current', { authorization: 'Bearer nope' }, 403, 'FORBIDDEN'],
    ['not bearer: no token given', '/current', { authorization: `Basic ${TOKEN}` }, 401, 'UNAUTHORIZED'],
    ['right token', '/current', { authorization: `Bearer ${TOKEN}` }, 200, undefined],
    ['health is open', '/health', {}, 200, undefined],
    ['ready is open', '/ready', {}, 200, undefined],
    ['run needs it', '/run', {}, 401, 'UNAUTHORIZED'],
  ];
  for (const [name, path, headers, status, code] of cases) {
    const answer = await request(d.url, path, { headers });
    assert.is(answer.status, status, name);
    assert.is(answer.json?.code, code, name);
  }
  const refused = await postEvent(d.url, { type: 'weather', data: 1 });
  assert.is(refused.status, 401);
  assert.is(refused.json.detail, 'This daemon needs a token: send Authorization: Bearer <token>.');
  const shutdown = await request(d.url, '/shutdown', { method: 'POST' });
  assert.is(shutdown.status, 401, 'shutdown needs the token when one is configured');
  assert.equal((await request(d.url, '/current', { headers: { authorization: `Bearer ${TOKEN}` } })).json, { current: {} },
    'the refused event was not recorded');
}));

test('the client sends the token; without it the error names the status', () => withTestDaemon({ flags: { token: TOKEN } }, async (d) => {
  const good = new TelemetryClient({ baseUrl: d.url, token: TOKEN, env: {} });
  assert.is((await good.postEvent('weather', { t: 1 })).seq, 1);
  const fromEnv = new TelemetryClient({ baseUrl: d.url, env: { MERIDIAN_TELEMETRY_TOKEN: TOKEN } });
  assert.is((await fromEnv.currentEvent('weather')).seq, 1);
  const bad = new TelemetryClient({ baseUrl: d.url, env: {} });
  const error = await bad.current().then(() => undefined, (e: unknown) => e);
  assert.instance(error, TelemetryClientError);
  assert.is((error as TelemetryClientError).statusCode, 401);
  assert.is((error as TelemetryClientError).code, 'UNAUTHORIZED');
}));

test('browsers are kept out: Origin header or a foreign Host is 403', () => withTestDaemon({}, async (d) => {
  const cases: Array<[string, Record<string, string>, number]> = [
    ['Origin from a page', { origin: 'http://evil.example' }, 403],
    ['Origin null', { origin: 'null' }, 403],
    ['foreign Host (DNS rebinding)', { host: `evil.example:${d.port}` }, 403],
    ['foreign Host without port', { host: 'attacker.test' }, 403],
    ['own address', { host: `127.0.0.1:${d.port}` }, 200],
    ['localhost', { host: `localhost:${d.port}` }, 200],
    ['IPv6 loopback', { host: `[::1]:${d.port}` }, 200],
  ];
  for (const [name, headers, status] of cases) {
    const answer = await request(d.url, '/current', { headers });
    assert.is(answer.status, status, name);
    if (status === 403) assert.is(answer.json.code, 'FORBIDDEN', name);
  }
  const posted = await postEvent(d.url, { type: 'x', data: 1 }, { origin: 'http://evil.example' });
  assert.is(posted.status, 403);
  assert.equal((await request(d.url, '/current')).json, { current: {} });
}));

test('binding a non-loopback address without a token is refused, with the reason', async () => {
  const dir = tempDir();
  try {
    const config = resolveDaemonConfig({ host: '0.0.0.0', port: 1, siteDir: dir }, {}, dir);
    const error = await startDaemon(config, { clock: systemClock, logger: silentLogger }).then(() => undefined, (e: unknown) => e);
    assert.instance(error, StartupError);
    assert.is((error as Error).message, REFUSAL);
    const child = spawnSync(process.execPath, [MERIDIAN_BIN, 'telemetry', 'run', '--host', '0.0.0.0', '--site-dir', dir],
      { env: cleanEnv(), encoding: 'utf8', timeout: 20000 });
    assert.is(child.status, 1);
    assert.is(child.stdout, '');
    assert.ok(child.stderr.endsWith(` ERROR ${REFUSAL}\n`), child.stderr);
  } finally {
    removeDir(dir);
  }
});

const REFUSAL = 'refusing to bind 0.0.0.0 without a token: set --token or MERIDIAN_TELEMETRY_TOKEN, bind localhost, '
  + 'or accept an open daemon with --allow-unauthenticated';
const OPEN_WARNING = 'WARN UNAUTHENTICATED: bound to 0.0.0.0 without a token (--allow-unauthenticated): '
  + 'anyone who can reach this port can record and read telemetry, start and stop runs';

test('--allow-unauthenticated: a non-loopback bind without a token starts, warns at start-up, and /status says so', async () => {
  await withTestDaemon({ flags: { host: '0.0.0.0', allowUnauthenticated: true } }, async (d) => {
    assert.equal(d.logs.filter((l) => / WARN /.test(l)).map((l) => l.replace(/^\S+ /, '')), [OPEN_WARNING]);
    const status = await request(d.url, '/status');
    assert.is(status.json.authenticated, false);
    assert.is(status.json.warning, 'no token: anyone who can reach 0.0.0.0 can record and read telemetry (--allow-unauthenticated)');
    assert.is((await postEvent(d.url, { type: 'weather', data: 1 })).status, 200);
  });
  await withTestDaemon({ flags: { allowUnauthenticated: true } }, async (local) => {
    assert.equal(local.logs.filter((l) => / WARN /.test(l)), [], 'on loopback the switch changes nothing');
    const status = await request(local.url, '/status');
    assert.is(status.json.authenticated, false);
    assert.is('warning' in status.json, false);
  });
});

// [name, extra argv, extra environment]: the two ways a unit's supervisor can say it
const OPEN_STARTS: Array<[string, string[], Record<string, string>]> = [
  ['the flag', ['--allow-unauthenticated'], {}],
  ['the environment variable', [], { MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED: '1' }],
];

for (const [name, args, env] of OPEN_STARTS) {
  test(`telemetry run --host 0.0.0.0 without a token starts with ${name}, warning on stderr`, async () => {
    const dir = tempDir();
    try {
      const port = await freePort();
      const child = spawn(process.execPath, [MERIDIAN_BIN, 'telemetry', 'run', '--host', '0.0.0.0', '--port', String(port), '--site-dir', dir, ...args],
        { env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (/listening on/.test(stderr)) resolve();
        });
        void exited.then(() => reject(new Error(`exited before listening:\n${stderr}`)));
      });
      assert.ok(stderr.includes(` ${OPEN_WARNING}\n`), stderr);
      assert.is((await request(`http://127.0.0.1:${port}`, '/status')).json.authenticated, false);
      child.kill('SIGTERM');
      assert.is(await exited, 0);
    } finally {
      removeDir(dir);
    }
  });
}

/** A non-loopback IPv4 address of this machine (the tests are loopback-only otherwise). */
function externalAddress(): string | undefined {
  return Object.values(os.networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

test('bound to 0.0.0.0 with a token: a non-loopback client reaches it at its IP; /shutdown needs the token', async () => {
  const ip = externalAddress();
  if (!ip) {
    console.log('  (no non-loopback IPv4 address on this machine: the remote-client rules were not checked)');
    return;
  }
  await withTestDaemon({ flags: { host: '0.0.0.0', token: TOKEN } }, async (d) => {
    const url = `http://${ip}:${d.port}`;
    const auth = { authorization: `Bearer ${TOKEN}` };
    const cases: Array<[string, string, string, Record<string, string>, number, string | undefined]> = [
      ['open path from outside', 'GET', '/ready', {}, 200, undefined],
      ['no token from outside', 'GET', '/current', {}, 401, 'UNAUTHORIZED'],
      ['token from outside', 'GET', '/current', auth, 200, undefined],
      ['a host name that is not ours', 'GET', '/current', { ...auth, host: `evil.example:${d.port}` }, 403, 'FORBIDDEN'],
      ['shutdown from outside without the token', 'POST', '/shutdown', {}, 401, 'UNAUTHORIZED'],
      ['shutdown from outside with a wrong token', 'POST', '/shutdown', { authorization: 'Bearer nope' }, 403, 'FORBIDDEN'],
    ];
    for (const [name, method, path, headers, status, code] of cases) {
      const answer = await request(url, path, { method, headers });
      assert.is(answer.status, status, name);
      assert.is(answer.json?.code, code, name);
    }
    const stopped = await request(url, '/shutdown', { method: 'POST', headers: auth });
    assert.is(stopped.status, 200);
    assert.equal(stopped.json, { shutting_down: true });
    await d.daemon.closed;
  });
});

/** Write raw bytes to the daemon and collect everything it answers until it closes. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let got = '';
    socket.on('data', (c) => { got += c.toString(); });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

const TOO_LARGE = '{"detail":"The body is larger than the limit of 1000 bytes.","code":"BODY_TOO_LARGE"}';

test('the body limit answers 413 without reading the rest of the body', () => withTestDaemon({ flags: { maxBody: 1000 } }, async (d) => {
  // declares 10 MB and sends only a few bytes: the answer comes anyway, and the connection closes
  const declared = await exchange(d.port,
    'POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{"type":');
  assert.match(declared, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
  assert.ok(declared.endsWith(TOO_LARGE), declared);
  // chunked, no length declared: cut off once the limit is passed
  const chunk = `{"type":"x","data":"${'a'.repeat(1500)}"}`;
  const chunked = await exchange(d.port, 'POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
    `Transfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  assert.match(chunked, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
  assert.ok(chunked.endsWith(TOO_LARGE), chunked);
  assert.is((await postEvent(d.url, { type: 'x', data: 'small' })).json.seq, 1);
}));

test.run();
