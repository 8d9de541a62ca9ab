import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent } from './helpers/http.js';

// `telemetry current TYPE` as a safety check (issue 14): exit 4 when the reading is stale or
// missing, by --max-age or else the daemon's limit for the type, the age on stderr; the
// reading is still printed. Without any limit a missing reading stays the daemon's 404 (exit 1).

const T0 = '2026-03-17T20:00:00.000Z';

function withDaemon(fn: (d: TestDaemon, at: string[], clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, flags: { maxAge: 'power=90,dome=60' }, freshnessIntervalMs: 0 },
    (d) => fn(d, ['--host', '127.0.0.1', '--port', String(d.port)], clock));
}

test('current TYPE: exit 0 while fresh, 4 once stale (the daemon\'s limit, or --max-age), the reading still printed', () => withDaemon(async (d, at, clock) => {
  const power = (await postEvent(d.url, { type: 'power', data: { mains: true } })).text;
  const weather = (await postEvent(d.url, { type: 'weather', data: 1 })).text;
  clock.advance(90_000);
  // [args, exit, stdout, stderr]
  const rows: Array<[string[], number, string, string]> = [
    [['power'], 0, `${power}\n`, ''],
    [['weather'], 0, `${weather}\n`, ''],
    [['power', '--max-age', '89.999'], 4, `${power}\n`, `telemetry: "power" is stale: 90s old, max age 89.999s (--max-age) (seq 1, ts ${T0})\n`],
    [['weather', '--max-age', '60'], 4, `${weather}\n`, `telemetry: "weather" is stale: 90s old, max age 60s (--max-age) (seq 2, ts ${T0})\n`],
    [['weather', '--stale', '60'], 4, `${weather}\n`, `telemetry: "weather" is stale: 90s old, max age 60s (--max-age) (seq 2, ts ${T0})\n`],
    [['power', '--max-age', '120'], 0, `${power}\n`, ''],
  ];
  for (const [args, code, stdout, stderr] of rows) assert.equal(await cli(['current', ...args, ...at]), { code, stdout, stderr }, args.join(' '));
  clock.advance(500);
  assert.equal(await cli(['current', 'power', ...at]),
    { code: 4, stdout: `${power}\n`, stderr: `telemetry: "power" is stale: 90.5s old, max age 90s (seq 1, ts ${T0})\n` }, 'the daemon\'s limit');
  assert.equal(await cli(['telemetry', 'current', 'power', '--json', ...at], { bin: 'meridian' }),
    { code: 4, stdout: `${power}\n`, stderr: `meridian: "power" is stale: 90.5s old, max age 90s (seq 1, ts ${T0})\n` });
}));

test('current TYPE: a missing reading under a limit is exit 4; without one it stays the 404 (exit 1)', () => withDaemon(async (_d, at) => {
  const rows: Array<[string[], number, string]> = [
    [['dome'], 4, 'telemetry: "dome" has no reading (max age 60s)\n'],
    [['camera', '--max-age', '30'], 4, 'telemetry: "camera" has no reading (max age 30s (--max-age))\n'],
    [['camera'], 1, 'telemetry: there is no current reading of type "camera" (NO_READING)\n'],
  ];
  for (const [args, code, stderr] of rows) assert.equal(await cli(['current', ...args, ...at]), { code, stdout: '', stderr }, args.join(' '));
}));

test('current: bad --max-age, --theme without --follow, --max-age with --stale are usage errors (exit 2)', () => withDaemon(async (_d, at) => {
  const rows: Array<[string[], string]> = [
    [['power', '--max-age', '1m'], 'telemetry: --max-age must be a number of seconds of at least 0.001 (such as 60 or 0.5); got "1m" (see "telemetry current --help")\n'],
    [['power', '--max-age', '0'], 'telemetry: --max-age must be a number of seconds of at least 0.001 (such as 60 or 0.5); got "0" (see "telemetry current --help")\n'],
    [['--theme', 'night'], 'telemetry: --theme only applies with --follow (see "telemetry current --help")\n'],
    [['--follow', '--theme', 'dusk', '--json'], 'telemetry: --theme must be one of day, night; got "dusk" (see "telemetry current --help")\n'],
    [['power', '--max-age', '5', '--stale', '5'], 'telemetry: --stale is the old name of --max-age: give one of them (see "telemetry current --help")\n'],
  ];
  for (const [args, stderr] of rows) assert.equal(await cli(['current', ...args, ...at]), { code: 2, stdout: '', stderr }, args.join(' '));
}));

test('status: the number of stale types', () => withDaemon(async (d, at, clock) => {
  await postEvent(d.url, { type: 'power', data: 1 });
  clock.advance(91_000);
  const status = await cli(['status', ...at]);
  assert.is(status.code, 0);
  assert.match(status.stdout, / {2}site {2}1 type {2}2 stale\nrollups ok\n$/);
}));

test.run();
