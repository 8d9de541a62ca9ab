import os from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, TelemetryClientError } from '../client/index.js';
import { startDaemon, StartupError } from '../daemon/server.js';
import { isLoopbackHost, resolveDaemonConfig } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { systemClock } from '../lib/time.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Headers read as the RFCs say (issue 22): the Host header (RFC 9110: host[:port]; this
// machine's names, the operator's --allowed-hosts, the rest refused against DNS rebinding)
// and the Authorization scheme (RFC 7235: any case, spaces), and the token setting's
// whitespace. Against the real daemon on a loopback port.

// the names the daemon's edge would find on a Debian unit called unit-7
const MACHINE = ['unit-7', 'unit-7.local', '127.0.1.1', 'unit-7.example.org', '192.0.2.2', 'fd00::2'];
const ALLOWED = 'pocs-control,Dome-PC.,192.0.2.7';

// [name, Host header (PORT: the daemon's port), status, code of a refusal]
const HOSTS: Array<[string, string, number, string | undefined]> = [
  ['localhost with the port', 'localhost:PORT', 200, undefined],
  ['upper case', 'LOCALHOST:PORT', 200, undefined],
  ['a trailing dot', 'localhost.:PORT', 200, undefined],
  ['no port', 'localhost', 200, undefined],
  ['an empty port (RFC 3986)', 'localhost:', 200, undefined],
  ['another port (the port is not judged)', 'localhost:1', 200, undefined],
  ['a loopback address', '127.0.0.1:PORT', 200, undefined],
  ['IPv6 loopback', '[::1]:PORT', 200, undefined],
  ['IPv6 loopback spelled long', '[0:0:0:0:0:0:0:1]', 200, undefined],
  ['IPv4-mapped loopback', '[::ffff:127.0.0.1]:PORT', 200, undefined],
  ['0.0.0.0', '0.0.0.0:PORT', 200, undefined],
  ['the unspecified IPv6 address', '[::]:PORT', 200, undefined],
  ['the host name', 'unit-7:PORT', 200, undefined],
  ['the host name in capitals with .local and a dot', 'UNIT-7.LOCAL.:PORT', 200, undefined],
  ['the FQDN', 'unit-7.example.org:PORT', 200, undefined],
  ['the address the host name resolves to (Debian)', '127.0.1.1:PORT', 200, undefined],
  ['an interface address', '192.0.2.2:PORT', 200, undefined],
  ['an IPv6 interface address', '[fd00:0::2]:PORT', 200, undefined],
  ['an allowed host', 'pocs-control:PORT', 200, undefined],
  ['an allowed host given with a dot and capitals', 'dome-pc', 200, undefined],
  ['an allowed address', '192.0.2.7', 200, undefined],
  ['a foreign name (DNS rebinding)', 'evil.example:PORT', 403, 'FORBIDDEN'],
  ['a name under the host name', 'unit-7.evil.example:PORT', 403, 'FORBIDDEN'],
  ['a name ending in localhost but not under it', 'evil-localhost:PORT', 403, 'FORBIDDEN'],
  ['an address of another machine', '192.0.2.99:PORT', 403, 'FORBIDDEN'],
  ['userinfo', 'user@localhost:PORT', 400, 'INVALID_HOST'],
  ['userinfo with a password', 'user:pw@unit-7', 400, 'INVALID_HOST'],
  ['a port that is not digits', 'localhost:http', 400, 'INVALID_HOST'],
  ['two ports', 'localhost:1:2', 400, 'INVALID_HOST'],
  ['IPv6 without brackets', '::1', 400, 'INVALID_HOST'],
  ['an unclosed bracket', '[::1:PORT', 400, 'INVALID_HOST'],
  ['a zone', '[fe80::1%25eth0]:PORT', 400, 'INVALID_HOST'],
  ['a path', 'localhost/x', 400, 'INVALID_HOST'],
  ['a space', 'local host', 400, 'INVALID_HOST'],
];

test('Host: this machine\'s names and the allowed ones are accepted in any RFC spelling, others refused', () =>
  withTestDaemon({ machineNames: MACHINE, flags: { allowedHosts: ALLOWED } }, async (d) => {
    for (const [name, host, status, code] of HOSTS) {
      const value = host.replace('PORT', String(d.port));
      const answer = await request(d.url, '/current', { headers: { host: value } });
      assert.is(answer.status, status, name);
      if (code === 'INVALID_HOST') {
        assert.equal(answer.json, { detail: `Host ${JSON.stringify(value)} is not a host name or address with an optional port.`, code }, name);
      } else if (code !== undefined) {
        assert.equal(answer.json, { detail: `Host ${JSON.stringify(value)} is not one of this daemon's names (--allowed-hosts adds names).`, code }, name);
      } else {
        assert.is(answer.text, '{"current":{}}', name);
      }
    }
    // a refused write records nothing
    assert.is((await postEvent(d.url, { type: 'x', data: 1 }, { host: 'user@localhost' })).status, 400);
    assert.is((await postEvent(d.url, { type: 'x', data: 1 }, { host: 'evil.example' })).status, 403);
    assert.is((await request(d.url, '/current')).text, '{"current":{}}');
  }));

test('Host: without machine names or --allowed-hosts, the host name is refused (what the daemon\'s edge adds)', () =>
  withTestDaemon({}, async (d) => {
    assert.is((await request(d.url, '/current', { headers: { host: `unit-7:${d.port}` } })).status, 403);
    assert.is((await request(d.url, '/current', { headers: { host: `pocs-control:${d.port}` } })).status, 403);
  }));

test('a bind host is judged loopback in any spelling (a loopback bind needs no token)', () => {
  const rows: Array<[string, boolean]> = [
    ['localhost', true], ['LOCALHOST.', true], ['dome.localhost', true], ['127.0.1.1', true], ['::1', true], ['[0:0::1]', true],
    ['::ffff:127.0.0.1', true], ['0.0.0.0', false], ['::', false], ['unit-7', false], ['192.0.2.2', false], ['localhost.evil', false],
  ];
  for (const [host, loopback] of rows) assert.is(isLoopbackHost(host), loopback, host);
});

// this machine's first network (not loopback) IPv4 address: a client on the unit that names it so
const NETWORK_ADDRESS = Object.values(os.networkInterfaces()).flatMap((l) => l ?? []).find((i) => i.family === 'IPv4' && !i.internal)?.address;

test('/shutdown from this machine by its network address is a local client (no token needed), as by loopback', () =>
  withTestDaemon({ flags: { host: '0.0.0.0', allowUnauthenticated: true } }, async (d) => {
    assert.ok(NETWORK_ADDRESS, 'this test needs a network interface with an IPv4 address');
    const answer = await request(`http://${NETWORK_ADDRESS}:${d.port}`, '/shutdown', { method: 'POST' });
    assert.equal([answer.status, answer.text], [200, '{"shutting_down":true}']);
    await d.daemon.closed;
  }));

const TOKEN = 's3cret-token';

// [name, Authorization header (undefined: none), status, code]
const AUTHORIZATION: Array<[string, string | undefined, number, string | undefined]> = [
  ['Bearer', `Bearer ${TOKEN}`, 200, undefined],
  ['lower case scheme', `bearer ${TOKEN}`, 200, undefined],
  ['upper case scheme', `BEARER ${TOKEN}`, 200, undefined],
  ['mixed case scheme', `bEaReR ${TOKEN}`, 200, undefined],
  ['several spaces', `Bearer    ${TOKEN}`, 200, undefined],
  ['surrounding spaces', `  Bearer ${TOKEN}  `, 200, undefined],
  ['a wrong token', 'Bearer nope', 403, 'FORBIDDEN'],
  ['the token in another case', `Bearer ${TOKEN.toUpperCase()}`, 403, 'FORBIDDEN'],
  ['the token and more', `Bearer ${TOKEN} x`, 403, 'FORBIDDEN'],
  ['no header', undefined, 401, 'UNAUTHORIZED'],
  ['the scheme alone', 'Bearer', 401, 'UNAUTHORIZED'],
  ['another scheme', `Basic ${TOKEN}`, 401, 'UNAUTHORIZED'],
  ['no space after the scheme', `Bearer${TOKEN}`, 401, 'UNAUTHORIZED'],
  ['the token alone', TOKEN, 401, 'UNAUTHORIZED'],
];

for (const [setting, flags, env] of [
  ['--token', { token: TOKEN }, {}],
  ['--token with surrounding whitespace', { token: ` ${TOKEN}\n` }, {}],
  ['MERIDIAN_TELEMETRY_TOKEN with a trailing newline', {}, { MERIDIAN_TELEMETRY_TOKEN: `${TOKEN}\n` }],
] as const) {
  test(`Authorization as RFC 7235 reads it (${setting})`, () => withTestDaemon({ flags, env }, async (d) => {
    for (const [name, header, status, code] of AUTHORIZATION) {
      const answer = await request(d.url, '/current', { headers: header === undefined ? {} : { authorization: header } });
      assert.is(answer.status, status, name);
      assert.is(answer.json?.code, code, name);
    }
  }));
}

test('the client reads the token as the daemon does: trimmed, a blank variable is none', () => withTestDaemon({ flags: { token: TOKEN } }, async (d) => {
  const rows: Array<[string, ConstructorParameters<typeof TelemetryClient>[0], number]> = [
    ['an option with a trailing newline', { baseUrl: d.url, token: `${TOKEN}\n`, env: {} }, 200],
    ['a variable with surrounding spaces', { baseUrl: d.url, env: { MERIDIAN_TELEMETRY_TOKEN: ` ${TOKEN} ` } }, 200],
    ['a blank variable: no token', { baseUrl: d.url, env: { MERIDIAN_TELEMETRY_TOKEN: ' \n' } }, 401],
  ];
  for (const [name, options, status] of rows) {
    const client = new TelemetryClient(options);
    try {
      const answer = await client.current().then(() => 200, (e: unknown) => (e as TelemetryClientError).statusCode);
      assert.is(answer, status, name);
    } finally {
      client.close();
    }
  }
}));

test('a token variable of whitespace only is no token: on loopback open, on 0.0.0.0 the daemon refuses to start', async () => {
  await withTestDaemon({ env: { MERIDIAN_TELEMETRY_TOKEN: ' \t\n' } }, async (d) => {
    assert.is((await request(d.url, '/current')).status, 200);
    assert.is((await request(d.url, '/status')).json.authenticated, false);
  });
  const dir = tempDir();
  try {
    const config = resolveDaemonConfig({ host: '0.0.0.0', port: 1, siteDir: dir }, { MERIDIAN_TELEMETRY_TOKEN: '   ' }, dir);
    const error = await startDaemon(config, { clock: systemClock, logger: createLogger(() => {}, 'error', Date.now) }).then(() => undefined, (e: unknown) => e);
    assert.instance(error, StartupError);
    assert.is((error as Error).message, 'refusing to bind 0.0.0.0 without a token: set --token or MERIDIAN_TELEMETRY_TOKEN, bind localhost, '
      + 'or accept an open daemon with --allow-unauthenticated');
  } finally {
    removeDir(dir);
  }
});

test.run();
