import path from 'node:path';
import got from 'got';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, type TelemetryClientOptions } from '../client/index.js';
import { ConfigError } from '../lib/errors.js';
import { ROOT, type TestDaemon, withTestDaemon } from './helpers/daemon.js';

// new TelemetryClient(): what each option accepts, what it refuses (at construction, with the
// option, the expected and the given value), and where the address comes from.

function withDaemon(fn: (d: TestDaemon) => Promise<void>): Promise<void> {
  return withTestDaemon({}, fn);
}

const PORT_RULE = 'must be a whole number from 1 to 65535; got';
const TIMEOUT_RULE = 'timeout must be a number of seconds above 0 and at most 2147483; got';

const refused: Array<[string, TelemetryClientOptions, string]> = [
  ['port not a number', { port: 'abc' }, `port ${PORT_RULE} "abc"`],
  ['port 0 as text', { port: '0' }, `port ${PORT_RULE} "0"`],
  ['port past 65535', { port: '65536' }, `port ${PORT_RULE} "65536"`],
  ['port with a fraction as text', { port: '1.5' }, `port ${PORT_RULE} "1.5"`],
  ['port empty text', { port: '' }, `port ${PORT_RULE} ""`],
  ['port negative', { port: -1 }, `port ${PORT_RULE} -1`],
  ['port with a fraction', { port: 1.5 }, `port ${PORT_RULE} 1.5`],
  ['port NaN', { port: NaN }, `port ${PORT_RULE} NaN`],
  ['timeout 0', { timeout: 0 }, `${TIMEOUT_RULE} 0`],
  ['timeout negative', { timeout: -1 }, `${TIMEOUT_RULE} -1`],
  ['timeout NaN', { timeout: NaN }, `${TIMEOUT_RULE} NaN`],
  ['timeout Infinity', { timeout: Infinity }, `${TIMEOUT_RULE} Infinity`],
  ['timeout past the timer limit', { timeout: 2_147_484 }, `${TIMEOUT_RULE} 2147484`],
  ['timeout as text', { timeout: '5' as unknown as number }, `${TIMEOUT_RULE} "5"`],
  ['host empty', { host: '' }, 'host must be a host name or address; got ""'],
  ['host with a space', { host: 'dome pc' }, 'host must be a host name or address; got "dome pc"'],
  ['host with a port', { host: 'localhost:7000' }, 'host must be a host name or address; got "localhost:7000"'],
  ['host with a path', { host: 'localhost/x' }, 'host must be a host name or address; got "localhost/x"'],
  ['baseUrl without a scheme', { baseUrl: 'localhost:6562' }, 'baseUrl must be an http:// or https:// URL; got "localhost:6562"'],
  ['baseUrl not a URL', { baseUrl: 'http://' }, 'baseUrl must be an http:// or https:// URL; got "http://"'],
  ['baseUrl ftp', { baseUrl: 'ftp://127.0.0.1:6562' }, 'baseUrl must be an http:// or https:// URL; got "ftp://127.0.0.1:6562"'],
  ['baseUrl with a query', { baseUrl: 'http://127.0.0.1:6562/?x=1' }, 'baseUrl must be an http:// or https:// URL; got "http://127.0.0.1:6562/?x=1"'],
  ['env port not a number', { env: { MERIDIAN_TELEMETRY_PORT: 'abc' } }, `MERIDIAN_TELEMETRY_PORT ${PORT_RULE} "abc"`],
  ['env port past 65535', { env: { MERIDIAN_TELEMETRY_PORT: '65536' } }, `MERIDIAN_TELEMETRY_PORT ${PORT_RULE} "65536"`],
  ['env host with a space', { env: { MERIDIAN_TELEMETRY_HOST: 'dome pc' } }, 'MERIDIAN_TELEMETRY_HOST must be a host name or address; got "dome pc"'],
  ['a bad port is refused even with baseUrl', { baseUrl: 'http://127.0.0.1:6562', port: 'abc' }, `port ${PORT_RULE} "abc"`],
];

test('the built package exports ConfigError, and the client throws it', async () => {
  const pkg = await import(path.join(ROOT, 'dist', 'index.js')) as typeof import('../index.js');
  const error = (() => {
    try {
      return new pkg.TelemetryClient({ env: {}, port: 'abc' });
    } catch (e) {
      return e;
    }
  })();
  assert.instance(error, pkg.ConfigError);
  assert.is((error as InstanceType<typeof pkg.ConfigError>).option, 'port');
});

for (const [name, options, message] of refused) {
  test(`construction refuses ${name}`, () => {
    assert.throws(() => new TelemetryClient({ env: {}, ...options }),
      (error: unknown) => error instanceof ConfigError && error.message === message, message);
  });
}

const addresses: Array<[string, TelemetryClientOptions, string]> = [
  ['defaults', { env: {} }, 'http://localhost:6562'],
  ['env host and port', { env: { MERIDIAN_TELEMETRY_HOST: '127.0.0.2', MERIDIAN_TELEMETRY_PORT: '7001' } }, 'http://127.0.0.2:7001'],
  ['empty env values count as unset', { env: { MERIDIAN_TELEMETRY_HOST: '', MERIDIAN_TELEMETRY_PORT: '' } }, 'http://localhost:6562'],
  ['port as a string', { port: '7002', env: {} }, 'http://localhost:7002'],
  ['port as a number', { port: 7003, env: {} }, 'http://localhost:7003'],
  ['options win over env', { host: 'dome-pc', port: 7004, env: { MERIDIAN_TELEMETRY_HOST: 'x', MERIDIAN_TELEMETRY_PORT: '1' } }, 'http://dome-pc:7004'],
  ['IPv6 host gets brackets', { host: '::1', env: {} }, 'http://[::1]:6562'],
  ['bracketed IPv6 host', { host: '[::1]', port: 7005, env: {} }, 'http://[::1]:7005'],
  ['port 80', { host: '127.0.0.1', port: 80, env: {} }, 'http://127.0.0.1:80'],
  ['baseUrl wins, trailing slash dropped', { baseUrl: 'http://127.0.0.1:9/', host: 'x', port: 1, env: {} }, 'http://127.0.0.1:9'],
  ['baseUrl ignores a stale env port', { baseUrl: 'https://obs.example/telemetry', env: { MERIDIAN_TELEMETRY_PORT: 'abc' } }, 'https://obs.example/telemetry'],
];

for (const [name, options, baseUrl] of addresses) {
  test(`address: ${name}`, () => {
    assert.is(new TelemetryClient(options).baseUrl, baseUrl);
  });
}

test('the options reach got: timeout in ms (default 5 s), no retries, even when the session asks for them', () => withDaemon(async (d) => {
  const seen: Array<[number | undefined, number | undefined]> = [];
  const session = got.extend({
    retry: { limit: 3 },
    hooks: { beforeRequest: [(options) => { seen.push([options.timeout.request, options.retry.limit]); }] },
  });
  await new TelemetryClient({ baseUrl: d.url, session, env: {} }).health();
  await new TelemetryClient({ baseUrl: d.url, session, timeout: 0.25, env: {} }).health();
  await new TelemetryClient({ baseUrl: d.url, session, timeout: 1.0004, env: {} }).health();
  assert.equal(seen, [[5000, 0], [250, 0], [1000, 0]]);
}));

test('env fallback: host and port from the env option reach the daemon', () => withDaemon(async (d) => {
  const client = new TelemetryClient({ env: { MERIDIAN_TELEMETRY_HOST: '127.0.0.1', MERIDIAN_TELEMETRY_PORT: String(d.port) } });
  assert.is(client.baseUrl, d.url);
  assert.equal(await client.health(), { ok: true });
  assert.is((await client.postEvent('weather', 1)).seq, 1);
}));

test('env fallback: without an env option the client reads process.env', () => withDaemon(async (d) => {
  const saved = { host: process.env.MERIDIAN_TELEMETRY_HOST, port: process.env.MERIDIAN_TELEMETRY_PORT };
  process.env.MERIDIAN_TELEMETRY_HOST = '127.0.0.1';
  process.env.MERIDIAN_TELEMETRY_PORT = String(d.port);
  let client: TelemetryClient;
  try {
    client = new TelemetryClient();
  } finally {
    restore('MERIDIAN_TELEMETRY_HOST', saved.host);
    restore('MERIDIAN_TELEMETRY_PORT', saved.port);
  }
  assert.is(client.baseUrl, d.url);
  assert.equal(await client.health(), { ok: true });
}));

test('port as a numeric string and baseUrl both reach the daemon', () => withDaemon(async (d) => {
  const byPort = new TelemetryClient({ host: '127.0.0.1', port: String(d.port), env: {} });
  assert.is((await byPort.postEvent('weather', 1)).seq, 1);
  // baseUrl wins over a host and port that lead nowhere
  const byUrl = new TelemetryClient({ baseUrl: `${d.url}/`, host: 'nowhere.invalid', port: 1, env: {} });
  assert.is((await byUrl.postEvent('weather', 2)).seq, 2);
}));

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

test.run();
