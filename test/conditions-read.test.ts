import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { resolveConditions } from '../daemon/conditions/config.js';
import { readConditions, type ConditionValue } from '../daemon/conditions/read.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// readConditions over the real daemon's view and freshness judge (readings posted over HTTP,
// a manual clock): values converted exactly, recorded spellings kept, missing type / field /
// not a number with the reason, stale values marked stale with their age, the dew point computed.

const T0 = '2026-11-25T01:00:00.000Z';
const CONFIG = `[conditions]
temperature = { type = "weather", field = "data.temp_f", unit = "degF" }
humidity = { type = "weather", field = "data.rh" }
windspeed = { type = "weather", field = "data.wind_kph", unit = "km/h" }
pressure = { type = "baro", field = "data.p" }
skytemperature = { type = "cloud", field = "data.sky" }
rainrate = { type = "rain", field = "data.mm_h" }
`;
const conditions = resolveConditions(parseConfigFile(CONFIG, 't.toml').conditions, 't.toml');

function withDaemon(fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, flags: { maxAge: 'weather=60,baro=60,cloud=60,rain=60' }, freshnessIntervalMs: 0, safetyIntervalMs: 0 }, (d) => fn(d, clock));
}

async function post(d: TestDaemon, type: string, data: string): Promise<void> {
  const answer = await request(d.url, '/event', { method: 'POST', body: `{"type":"${type}","data":${data}}`, headers: { 'content-type': 'application/json' } });
  assert.is(answer.status, 200, answer.text);
}

const read = (d: TestDaemon, clock: ManualClock) => readConditions(d.daemon.freshness.judge, conditions, clock.now());
const row = (property: string, type: string, unit: string, value: number | null, text: string | null, age: number | null, stale: boolean, reason?: string): ConditionValue =>
  ({ property, type, unit, value, text, age_s: age, stale, ...(reason === undefined ? {} : { reason }) } as ConditionValue);

test('nothing posted: every property null, stale, missing; the dew point says why', () => withDaemon(async (d, clock) => {
  const missing = (t: string) => `${t} is missing (no reading)`;
  assert.equal(read(d, clock), [
    { ...row('dewpoint', 'weather', 'degC', null, null, null, true, missing('weather')), computed: true },
    row('humidity', 'weather', '%', null, null, null, true, missing('weather')),
    row('pressure', 'baro', 'hPa', null, null, null, true, missing('baro')),
    row('rainrate', 'rain', 'mm/h', null, null, null, true, missing('rain')),
    row('skytemperature', 'cloud', 'degC', null, null, null, true, missing('cloud')),
    row('temperature', 'weather', 'degC', null, null, null, true, missing('weather')),
    row('windspeed', 'weather', 'm/s', null, null, null, true, missing('weather')),
  ]);
}));

test('values: converted exactly, recorded spelling kept, not a number and missing field with reasons, stale with age', () => withDaemon(async (d, clock) => {
  await post(d, 'weather', '{"temp_f":50,"rh":80.50,"wind_kph":36}');
  await post(d, 'baro', '{"p":1013.250}');
  await post(d, 'cloud', '{"sky":"cold"}');
  await post(d, 'rain', '{"other":1}');
  clock.advance(2500);
  const gamma = Math.log(80.5 / 100) + (17.62 * 10) / (243.12 + 10);
  const dew = (243.12 * gamma) / (17.62 - gamma);
  assert.equal(read(d, clock), [
    { ...row('dewpoint', 'weather', 'degC', dew, JSON.stringify(dew), 2.5, false), computed: true },
    row('humidity', 'weather', '%', 80.5, '80.50', 2.5, false),
    row('pressure', 'baro', 'hPa', 1013.25, '1013.250', 2.5, false),
    row('rainrate', 'rain', 'mm/h', null, null, 2.5, false, 'rain.data.mm_h is missing'),
    row('skytemperature', 'cloud', 'degC', null, null, 2.5, false, 'cloud.data.sky is not a number ("cold")'),
    row('temperature', 'weather', 'degC', 10, '10', 2.5, false),
    row('windspeed', 'weather', 'm/s', 10, '10', 2.5, false),
  ]);
  clock.advance(60_000);
  await post(d, 'baro', '{"p":29.92}');
  const stale = 'weather is stale (age 62.5 s, limit 60 s)';
  const values = read(d, clock);
  assert.equal(values.filter((v) => v.type === 'weather'), [
    { ...row('dewpoint', 'weather', 'degC', dew, JSON.stringify(dew), 62.5, true, stale), computed: true },
    row('humidity', 'weather', '%', 80.5, '80.50', 62.5, true, stale),
    row('temperature', 'weather', 'degC', 10, '10', 62.5, true, stale),
    row('windspeed', 'weather', 'm/s', 10, '10', 62.5, true, stale),
  ]);
  assert.equal(values.find((v) => v.property === 'pressure'), row('pressure', 'baro', 'hPa', 29.92, '29.92', 0, false));
}));

test('edge values: a number too large, null, an out-of-range humidity for the dew point, a mapped dew point', async () => {
  await withDaemon(async (d, clock) => {
    await post(d, 'weather', '{"temp_f":1e400,"rh":0,"wind_kph":null}');
    const values = read(d, clock);
    assert.equal(values.filter((v) => v.type === 'weather'), [
      { ...row('dewpoint', 'weather', 'degC', null, null, 0, false, 'weather.data.temp_f is not a number (a number too large for a double)'), computed: true },
      row('humidity', 'weather', '%', 0, '0', 0, false),
      row('temperature', 'weather', 'degC', null, null, 0, false, 'weather.data.temp_f is not a number (a number too large for a double)'),
      row('windspeed', 'weather', 'm/s', null, null, 0, false, 'weather.data.wind_kph is not a number (null)'),
    ]);
    await post(d, 'weather', '{"temp_f":50,"rh":0,"wind_kph":0}');
    assert.equal(read(d, clock)[0], { ...row('dewpoint', 'weather', 'degC', null, null, 0, false,
      'the dew point of 10 degC and 0 % cannot be computed (the humidity must be above 0 and at most 110 %)'), computed: true });
  });
  const own = resolveConditions(parseConfigFile('[conditions]\ndewpoint = { type = "w", field = "data.d", unit = "K" }\ntemperature = { type = "w", field = "data.t" }\nhumidity = { type = "w", field = "data.h" }', 't.toml').conditions, 't.toml');
  await withDaemon(async (d, clock) => {
    await post(d, 'w', '{"d":283.15,"t":12,"h":50}');
    assert.equal(readConditions(d.daemon.freshness.judge, own, clock.now()).map((v) => [v.property, v.value, v.computed]),
      [['dewpoint', 283.15 - 273.15, undefined], ['humidity', 50, undefined], ['temperature', 12, undefined]]);
  });
});

test.run();
