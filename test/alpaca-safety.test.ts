import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { resolveAlpaca } from '../daemon/alpaca/config.js';
import { alpacaGet, alpacaPut, udpProbe } from './helpers/alpaca.js';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';
import { request } from './helpers/http.js';

// The SafetyMonitor is fail-safe (docs/integrations.md "ASCOM Alpaca"): IsSafe is true only
// while the verdict is safe; no [safety], an unsafe verdict and a stale or missing required
// input all read false. Discovery answers a probe on loopback. The [alpaca] section's keys.

const T0 = '2026-11-25T01:00:00.000Z';
const SAFETY = `
[alpaca]
port = 0
discovery_port = 0
[safety]
required = ["weather"]
[[safety.rule]]
name = "wind"
when = "weather.data.wind_kmh > 40"
`;

function withAlpaca(config: string, fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, flags: { maxAge: 'weather=300' }, freshnessIntervalMs: 0, safetyIntervalMs: 0, config }, (d) => fn(d, clock));
}

async function isSafe(d: TestDaemon): Promise<unknown> {
  const a = await alpacaGet(d, '/api/v1/safetymonitor/0/issafe');
  assert.is(a.status, 200);
  assert.is(a.json.ErrorNumber, 0, a.text);
  return a.json.Value;
}

async function post(d: TestDaemon, data: string): Promise<void> {
  const answer = await request(d.url, '/event', { method: 'POST', body: `{"type":"weather","data":${data}}`, headers: { 'content-type': 'application/json' } });
  assert.is(answer.status, 200, answer.text);
}

test('IsSafe follows the verdict: missing input, safe, stale, unsafe rule, safe again', () => withAlpaca(SAFETY, async (d, clock) => {
  assert.is((await alpacaPut(d, '/api/v1/safetymonitor/0/connect', '')).status, 200);
  assert.is(await isSafe(d), false, 'no weather reading yet');
  await post(d, '{"wind_kmh":10}');
  assert.is(await isSafe(d), true, 'fresh and calm');
  assert.equal((await alpacaGet(d, '/api/v1/safetymonitor/0/devicestate')).json.Value, [{ Name: 'IsSafe', Value: true }, { Name: 'TimeStamp', Value: T0 }]);
  clock.advance(300_001);
  assert.is(await isSafe(d), false, 'the weather reading went stale');
  await post(d, '{"wind_kmh":55}');
  assert.is(await isSafe(d), false, 'the wind rule is raised');
  await post(d, '{"wind_kmh":12}');
  assert.is(await isSafe(d), true, 'calm again');
  await post(d, '{"wind_kmh":"gusty"}');
  assert.is(await isSafe(d), false, 'a field that is not a number cannot be judged');
}));

test('no [safety] section: IsSafe is false whatever is recorded', () => withAlpaca('[alpaca]\nport = 0\ndiscovery = false\n', async (d) => {
  await alpacaPut(d, '/api/v1/safetymonitor/0/connected', 'Connected=true');
  await post(d, '{"wind_kmh":10}');
  assert.is(await isSafe(d), false);
}));

test('discovery: alpacadiscovery1 on loopback is answered {"AlpacaPort":N}; anything else is ignored', () => withAlpaca(SAFETY, async (d) => {
  const alpaca = d.daemon.alpaca!;
  const ignored = ['alpacadiscovery', 'alpacadiscovery2', 'ALPACADISCOVERY1', 'hello', `alpacadiscovery1${'x'.repeat(49)}`];
  const answers = await udpProbe(alpaca.discoveryPort!, [...ignored, 'alpacadiscovery1', `alpacadiscovery1${'\u0000'.repeat(48)}`], 2);
  assert.equal(answers, [`{"AlpacaPort":${alpaca.port}}`, `{"AlpacaPort":${alpaca.port}}`]);
  // datagrams on one socket are handled in order: every ignored one was handled before the answers
  assert.is(d.logs.filter((l) => l.includes('alpaca discovery: answering 127.0.0.1:')).length, 2, d.logs.join('\n'));
  assert.is(d.logs.filter((l) => l.includes('alpaca discovery: ignored')).length, ignored.length);
}));

test('[alpaca] keys: defaults, values, and each mistake a ConfigError naming the key', () => {
  const spec = (toml: string) => resolveAlpaca(parseConfigFile(toml, 'm.toml').alpaca, 'm.toml');
  assert.equal(spec('[alpaca]'), { port: 11111, bind: '127.0.0.1', discoveryPort: 32227, serverName: 'Meridian', location: '' });
  assert.equal(spec('[alpaca]\nport = 0\nbind = "0.0.0.0"\ndiscovery = false\ndiscovery_port = 4000\nserver_name = "Dome A"\nlocation = "Pier 2"'),
    { port: 0, bind: '0.0.0.0', discoveryPort: undefined, serverName: 'Dome A', location: 'Pier 2' });
  assert.is(spec('# none'), undefined);
  const rows: Array<[string, string]> = [
    ['alpaca = 1', 'm.toml: alpaca must be a table ([alpaca]); got 1'],
    ['[alpaca]\nprot = 1', 'm.toml: alpaca: prot must be a known key (port, bind, discovery, discovery_port, server_name, location; see docs/configuration.md); got "prot"'],
    ['[alpaca]\nport = 65536', 'm.toml: alpaca: port must be a port number 0-65535 (0: an ephemeral port); got 65536'],
    ['[alpaca]\nport = "11111"', 'm.toml: alpaca: port must be a port number 0-65535 (0: an ephemeral port); got "11111"'],
    ['[alpaca]\nport = 1.5', 'm.toml: alpaca: port must be a port number 0-65535 (0: an ephemeral port); got 1.5'],
    ['[alpaca]\ndiscovery_port = -1', 'm.toml: alpaca: discovery_port must be a port number 0-65535 (0: an ephemeral port); got -1'],
    ['[alpaca]\ndiscovery = "yes"', 'm.toml: alpaca: discovery must be true or false; got "yes"'],
    ['[alpaca]\nbind = ""', 'm.toml: alpaca: bind must be a string of 1-64 characters without control characters; got ""'],
    ['[alpaca]\nserver_name = "a\\nb"', 'm.toml: alpaca: server_name must be a string of 1-64 characters without control characters; got "a\\nb"'],
    [`[alpaca]\nlocation = "${'x'.repeat(65)}"`, `m.toml: alpaca: location must be a string of 0-64 characters without control characters; got "${'x'.repeat(65)}"`],
  ];
  for (const [toml, message] of rows) assert.throws(() => spec(toml), (e: Error) => e.name === 'ConfigError' && e.message === message, toml);
});

test('bound beyond loopback: a warning that Alpaca has no authentication; discovery on every interface', () => withTestDaemon({ config: '[alpaca]\nport = 0\nbind = "0.0.0.0"\ndiscovery_port = 0\n' }, async (d) => {
  const port = d.daemon.alpaca!.port;
  assert.equal(await udpProbe(d.daemon.alpaca!.discoveryPort!, ['alpacadiscovery1'], 1), [`{"AlpacaPort":${port}}`], 'the wildcard socket hears loopback too');
  assert.ok(d.logs.some((l) => l.endsWith(`WARN ASCOM Alpaca on 0.0.0.0:${port} has no authentication (Alpaca has none): anyone who can reach it can read the safety verdict `
    + 'and the conditions, and connect or disconnect the devices; keep the port inside the observatory network')), d.logs.join('\n'));
}));

test('a taken Alpaca port stops the daemon at start with a sentence naming it', async () => {
  await withAlpaca(SAFETY, async (d) => {
    const taken = d.daemon.alpaca!.port;
    const siteDir = tempDir();
    const error = await startTestDaemon({ siteDir, config: `[alpaca]\nport = ${taken}\ndiscovery = false\n` }).then(() => undefined, (e: Error) => e);
    removeDir(siteDir);
    assert.is(error?.name, 'StartupError');
    assert.is(error?.message, `cannot listen for ASCOM Alpaca on TCP 127.0.0.1:${taken}: the port is already in use`);
  });
});

test.run();
