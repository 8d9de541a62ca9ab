import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { resolveSafety } from '../daemon/safety/config.js';
import { cli } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { freePort, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';

// `telemetry safety` as a child process against the real daemon (on a manual clock, so that
// the bytes of the answer do not move): exit 0 safe, 4 unsafe with the reasons on stderr, 3
// no daemon; --json prints the daemon's bytes.

const T0 = '2026-11-25T01:00:00.000Z';
const spec = resolveSafety(parseConfigFile('[safety]\nrequired = ["weather"]\n[[safety.rule]]\nname = "wind"\nwhen = "weather.data.w > 40"\n', 't.toml').safety, 't.toml');

const safetyCli = (d: TestDaemon | undefined, port: number, args: string[] = [], bin: 'telemetry' | 'meridian' = 'telemetry') =>
  cli([...(bin === 'meridian' ? ['telemetry'] : []), 'safety', ...args], { bin, env: { MERIDIAN_TELEMETRY_PORT: String(d?.port ?? port), MERIDIAN_TELEMETRY_HOST: '127.0.0.1' } });

test('exit 4 unsafe (reasons on stderr), exit 0 safe, --json the daemon\'s bytes with the same exit code', () => withTestDaemon(
  { clock: new ManualClock(T0), safety: spec, safetyIntervalMs: 0, freshnessIntervalMs: 0 }, async (d) => {
    const missing = 'weather is missing (no reading); rule wind cannot be judged: weather is missing (no reading)';
    assert.equal(await safetyCli(d, 0), { code: 4, stdout: `UNSAFE since ${T0}: ${missing}\n`, stderr: `telemetry: unsafe: ${missing}\n` });
    await request(d.url, '/event', { method: 'POST', body: '{"type":"weather","data":{"w":45.0}}', headers: { 'content-type': 'application/json' } });
    const raised = await safetyCli(d, 0, [], 'meridian');
    assert.equal(raised, { code: 4, stdout: `UNSAFE since ${T0}: rule wind: weather.data.w > 40\n`, stderr: 'meridian: unsafe: rule wind: weather.data.w > 40\n' });
    const json = await safetyCli(d, 0, ['--json']);
    assert.equal(json, { code: 4, stdout: `${(await request(d.url, '/safety')).text}\n`, stderr: 'telemetry: unsafe: rule wind: weather.data.w > 40\n' });
    assert.match(json.stdout, /"value":\{"w":45\.0\}/);
    await postEvent(d.url, { type: 'weather', data: { w: 10 } });
    assert.equal(await safetyCli(d, 0), { code: 0, stdout: `SAFE since ${T0}\n`, stderr: '' });
    assert.equal(await safetyCli(d, 0, ['--json']), { code: 0, stdout: `${(await request(d.url, '/safety')).text}\n`, stderr: '' });
  }));

test('a reason quoting a posted string is one line, its controls and bidi overrides shown as U+FFFD, piped or not (hostile tester P, finding 7); --json keeps the bytes', () => withTestDaemon(
  { clock: new ManualClock(T0), safety: spec, safetyIntervalMs: 0, freshnessIntervalMs: 0 }, async (d) => {
    await postEvent(d.url, { type: 'weather', data: { w: 'a\u202eb\u0085c\td' } });
    const reason = 'rule wind cannot be judged: weather.data.w is not a number ("a\ufffdb\ufffdc\\td")';
    assert.equal(await safetyCli(d, 0), { code: 4, stdout: `UNSAFE since ${T0}: ${reason}\n`, stderr: `telemetry: unsafe: ${reason}\n` });
    const json = await safetyCli(d, 0, ['--json']);
    assert.is(json.stdout, `${(await request(d.url, '/safety')).text}\n`);
  }));

test('a daemon without [safety]: unsafe, exit 4', () => withTestDaemon({ clock: new ManualClock(T0) }, async (d) => {
  const reason = "no [safety] section in the daemon's config";
  assert.equal(await safetyCli(d, 0), { code: 4, stdout: `UNSAFE since ${T0}: ${reason}\n`, stderr: `telemetry: unsafe: ${reason}\n` });
}));

test('no daemon: exit 3; usage mistakes: exit 2', async () => {
  const port = await freePort();
  assert.equal(await safetyCli(undefined, port), { code: 3, stdout: '', stderr: `telemetry: no telemetry daemon at 127.0.0.1:${port} (connection refused)\n` });
  const extra = await safetyCli(undefined, port, ['weather']);
  assert.equal([extra.code, extra.stdout], [2, '']);
  assert.match(extra.stderr, /^telemetry: .*\(see "telemetry safety --help"\)\n$/);
});

test.run();
