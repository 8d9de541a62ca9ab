import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { resolveSafety } from '../daemon/safety/config.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// GET /safety against the real daemon on a manual clock: required types missing and stale, a
// field missing or not a number, raise and clear with hysteresis, safe_for, the events.

const T0 = '2026-11-25T01:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

const CONFIG = `
[safety]
required = ["weather", "power"]
safe_for = "15m"
[[safety.rule]]
name = "wind"
when = "weather.data.wind_kmh > 40"
clear = "weather.data.wind_kmh < 30"
`;

function withSafety(toml: string | undefined, fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  const safety = toml === undefined ? undefined : resolveSafety(parseConfigFile(toml, 'test.toml').safety, 'test.toml');
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, flags: { maxAge: 'weather=1800' }, freshnessIntervalMs: 0, safetyIntervalMs: 0, safety },
    (d) => fn(d, clock));
}

/** The body of GET /safety, as text. */
async function safety(d: TestDaemon): Promise<string> {
  const answer = await request(d.url, '/safety');
  assert.is(answer.status, 200);
  assert.is(answer.headers['content-type'], 'application/json');
  return answer.text;
}

async function post(d: TestDaemon, type: string, data: string): Promise<void> {
  const answer = await request(d.url, '/event', { method: 'POST', body: `{"type":"${type}","data":${data}}`, headers: { 'content-type': 'application/json' } });
  assert.is(answer.status, 200, answer.text);
}

/** The recorded meridian.safety events' data, in order (from GET /history). */
async function verdictEvents(d: TestDaemon): Promise<Array<{ safe: boolean; reasons: string[]; since: string }>> {
  const answer = await request(d.url, '/history?type=meridian.safety');
  return (answer.json.events as Array<{ data: { safe: boolean; reasons: string[]; since: string } }>).map((e) => e.data);
}

const body = (safe: boolean, since: string, reasons: string[], inputs: string) =>
  `{"safe":${safe},"since":"${since}","reasons":${JSON.stringify(reasons)},"inputs":{${inputs}},"configured":true}`;
const MISSING = '{"age_s":null,"stale":true,"value":null}';

test('the verdict through its inputs: missing, safe_for, not a number, missing field, raise, hysteresis, clear, stale', () => withSafety(CONFIG, async (d, clock) => {
  const missing = 'weather is missing (no reading)';
  assert.is(await safety(d), body(false, T0, ['weather is missing (no reading)', 'power is missing (no reading)', `rule wind cannot be judged: ${missing}`],
    `"power":${MISSING},"weather":${MISSING}`));
  await post(d, 'power', '{"ups":"ok"}');
  await post(d, 'weather', '{"wind_kmh":12.0}');
  const fresh = (weather: string, age = 0, powerAge = age) =>
    `"power":{"age_s":${powerAge},"stale":false,"value":{"ups":"ok"}},"weather":{"age_s":${age},"stale":false,"value":${weather}}`;
  assert.is(await safety(d), body(false, T0, ['safe for 0s of 15m'], fresh('{"wind_kmh":12.0}')));
  clock.advance(192_000);
  assert.is(await safety(d), body(false, T0, ['safe for 3m12s of 15m'], fresh('{"wind_kmh":12.0}', 192)));
  clock.advance(708_000);
  assert.is(await safety(d), body(true, at(900_000), [], fresh('{"wind_kmh":12.0}', 900)));

  const rows: Array<[data: string, safe: boolean, since: number, reasons: string[]]> = [
    ['{"wind_kmh":"fast"}', false, 900_000, ['rule wind cannot be judged: weather.data.wind_kmh is not a number ("fast")']],
    ['{"wind":3}', false, 900_000, ['rule wind cannot be judged: weather.data.wind_kmh is missing']],
    ['{"wind_kmh":null}', false, 900_000, ['rule wind cannot be judged: weather.data.wind_kmh is not a number (null)']],
    ['{"wind_kmh":45}', false, 900_000, ['rule wind: weather.data.wind_kmh > 40']],
    // hysteresis: between clear (30) and raise (40) it stays raised
    ['{"wind_kmh":35}', false, 900_000, ['rule wind: weather.data.wind_kmh > 40']],
    ['{"wind_kmh":29.5}', false, 900_000, ['safe for 0s of 15m']],
    ['{"wind_kmh":35}', false, 900_000, ['safe for 0s of 15m']],
  ];
  for (const [data, safe, since, reasons] of rows) {
    await post(d, 'weather', data);
    assert.is(await safety(d), body(safe, at(since), reasons, fresh(data, 0, 900)), data);
  }
  // weather stops: stale past its 1800 s limit, unsafe whatever the rule said
  clock.advance(1_800_100);
  assert.is(await safety(d), body(false, at(900_000), ['weather is stale (age 1800.1 s, limit 1800 s)', 'rule wind cannot be judged: weather is stale (age 1800.1 s, limit 1800 s)'],
    `"power":{"age_s":2700.1,"stale":false,"value":{"ups":"ok"}},"weather":{"age_s":1800.1,"stale":true,"value":{"wind_kmh":35}}`));
  // one event per change of safe or of the rules raised (a restart takes them back from the
  // latest): the first verdict, safe, unsafe, wind raised, wind cleared (unsafe while safe_for holds)
  assert.equal(await verdictEvents(d), [
    { safe: false, reasons: ['weather is missing (no reading)', 'power is missing (no reading)', `rule wind cannot be judged: ${missing}`], since: T0 },
    { safe: true, reasons: [], since: at(900_000) },
    { safe: false, reasons: ['rule wind cannot be judged: weather.data.wind_kmh is not a number ("fast")'], since: at(900_000) },
    { safe: false, reasons: ['rule wind: weather.data.wind_kmh > 40'], since: at(900_000) },
    { safe: false, reasons: ['safe for 0s of 15m'], since: at(900_000) },
  ]);
}));

test('safe_for: unsafe at once, safe only after the whole span without a break', () => withSafety(`
[safety]
safe_for = 60
[[safety.rule]]
name = "rain"
when = "weather.data.rain"
`, async (d, clock) => {
  // each reading is read back at once (the verdict is judged when asked), then time passes
  const reasonsAfter = async (data: string, advanceMs: number) => {
    if (data !== '') await post(d, 'weather', data);
    await safety(d);
    clock.advance(advanceMs);
    return (JSON.parse(await safety(d)) as { safe: boolean; reasons: string[] });
  };
  assert.equal(await reasonsAfter('{"rain":false}', 59_900), { ...JSON.parse(await safety(d)), safe: false, reasons: ['safe for 59.9s of 1m'] });
  assert.equal((await reasonsAfter('{"rain":true}', 0)).reasons, ['rule rain: weather.data.rain']);
  assert.equal((await reasonsAfter('{"rain":false}', 30_000)).reasons, ['safe for 30s of 1m']);
  assert.equal((await reasonsAfter('', 30_000)).safe, true);
  // unsafe at once, a single reading is enough
  assert.equal((await reasonsAfter('{"rain":true}', 0)).safe, false);
  // an event per change of safe or of the rules raised (rain raised, then cleared while safe_for holds it unsafe)
  assert.equal((await verdictEvents(d)).map((e) => [e.safe, e.reasons]), [
    [false, ['rule rain cannot be judged: weather is missing (no reading)']], [false, ['rule rain: weather.data.rain']],
    [false, ['safe for 0s of 1m']], [true, []], [false, ['rule rain: weather.data.rain']],
  ]);
}));

test('without a [safety] section: unsafe, configured false, and nothing recorded', () => withSafety(undefined, async (d) => {
  await post(d, 'weather', '{"wind_kmh":1}');
  assert.is(await safety(d), `{"safe":false,"since":"${T0}","reasons":["no [safety] section in the daemon's config"],"inputs":{},"configured":false}`);
  assert.is((await request(d.url, '/current/meridian.safety')).status, 404);
  // the query string is ignored
  assert.is((await request(d.url, '/safety?x=1')).status, 200);
  assert.is((await request(d.url, '/safety', { method: 'POST', body: {} })).status, 405);
}));

test('types with dots, dashes and spaces; a value kept as recorded; meta fields', () => withSafety(`
[safety]
required = ["dome status"]
[[safety.rule]]
name = "dome"
when = "dome-status.data.open and \\"dome status\\".data.v > 1 or weather.station.meta.source != \\"roof\\""
`, async (d) => {
  await post(d, 'dome status', '{"v":1e400,"n":12345678901234567890}');
  await post(d, 'dome-status', '{"open":true}');
  await request(d.url, '/event', { method: 'POST', body: '{"type":"weather.station","data":1.0,"meta":{"source":"roof"}}', headers: { 'content-type': 'application/json' } });
  assert.is(await safety(d), body(false, T0, ['rule dome cannot be judged: "dome status".data.v is not a number (a number too large for a double)'],
    '"dome status":{"age_s":0,"stale":false,"value":{"v":1e400,"n":12345678901234567890}},'
    + '"dome-status":{"age_s":0,"stale":false,"value":{"open":true}},"weather.station":{"age_s":0,"stale":false,"value":1.0}'));
}));

test.run();
