import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// GET /safety/indi and GET /safety/watcher against the real daemon on a manual clock: the
// exact bodies in every fail-safe case (no [safety], unsafe, a required input stale, a mapped
// field missing or not a number, a mapped input stale while the verdict is safe), and safe.

const T0 = '2026-11-25T01:00:00.000Z';
const SAFETY = `
[safety]
required = ["weather"]
[[safety.rule]]
name = "wind"
when = "weather.data.wind > 40"
`;
const CONDITIONS = `
[conditions]
temperature = { type = "weather", field = "data.t", unit = "degF" }
windspeed = { type = "weather", field = "data.wind", unit = "km/h" }
windgust = { type = "weather", field = "data.gust" }
humidity = { type = "weather", field = "data.rh" }
pressure = { type = "baro", field = "data.p", unit = "inHg" }
`;

function withDaemon(toml: string, fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, config: toml, flags: { maxAge: 'weather=60,baro=30' }, freshnessIntervalMs: 0, safetyIntervalMs: 0 }, (d) => fn(d, clock));
}

async function post(d: TestDaemon, type: string, data: string): Promise<void> {
  const answer = await request(d.url, '/event', { method: 'POST', body: `{"type":"${type}","data":${data}}`, headers: { 'content-type': 'application/json' } });
  assert.is(answer.status, 200, answer.text);
}

async function texts(d: TestDaemon): Promise<[string, string]> {
  const indi = await request(d.url, '/safety/indi?ignored=1');
  const watcher = await request(d.url, '/safety/watcher');
  assert.equal([indi.status, indi.headers['content-type'], watcher.status, watcher.headers['content-type']],
    [200, 'application/json', 200, 'text/plain; charset=utf-8']);
  return [indi.text, watcher.text];
}

const indi = (open: 0 | 1, reasons: string) => `{"roof_status":{"open_ok":${open},"reasons":${JSON.stringify(reasons)}}}`;

test('no [safety] section: unsafe in both forms, the values still given', () => withDaemon(CONDITIONS, async (d) => {
  const reason = "no [safety] section in the daemon's config";
  assert.equal(await texts(d), [indi(0, reason), `forecast=2\nsafe=0\nreasons=${reason}; temperature: weather is missing (no reading); `
    + 'wind: weather is missing (no reading); gust: weather is missing (no reading); humidity: weather is missing (no reading); pressure: baro is missing (no reading)\n']);
  await post(d, 'weather', '{"t":50,"wind":36,"gust":12.50,"rh":80}');
  await post(d, 'baro', '{"p":29.92}');
  assert.equal(await texts(d), [indi(0, reason),
    `forecast=2\ntemperature=10\nwind=36\ngust=45\nhumidity=80\npressure=${29.92 * 25.4 * 1.33322387415}\nsafe=0\nreasons=${reason}\n`]);
}));

test('safe, then each fail-safe case: raised, field missing, not a number, mapped input stale, required input stale', () => withDaemon(SAFETY + CONDITIONS, async (d, clock) => {
  await post(d, 'weather', '{"t":50,"wind":36,"gust":12.50,"rh":80}');
  await post(d, 'baro', '{"p":1013}');
  const values = 'temperature=10\nwind=36\ngust=45\nhumidity=80\n';
  assert.equal(await texts(d), [indi(1, ''), `forecast=0\n${values}pressure=${1013 * 25.4 * 1.33322387415}\nsafe=1\n`]);

  await post(d, 'weather', '{"t":50,"wind":41,"gust":12.50,"rh":80}');
  const raised = 'rule wind: weather.data.wind > 40';
  assert.equal((await texts(d))[0], indi(0, raised));

  await post(d, 'weather', '{"t":50,"wind":10,"rh":"n/a"}');
  const [proxy, watcher] = await texts(d);
  assert.is(proxy, indi(1, ''), 'the verdict reads no gust or humidity: it is safe');
  assert.is(watcher, `forecast=2\ntemperature=10\nwind=10\npressure=${1013 * 25.4 * 1.33322387415}\nsafe=0\n`
    + 'reasons=gust: weather.data.gust is missing; humidity: weather.data.rh is not a number ("n/a")\n');

  await post(d, 'weather', '{"t":50,"wind":10,"gust":1,"rh":80}');
  clock.advance(31_000);
  assert.equal(await texts(d), [indi(1, ''), `forecast=2\ntemperature=10\nwind=10\ngust=3.6\nhumidity=80\npressure=${1013 * 25.4 * 1.33322387415}\nsafe=0\n`
    + 'reasons=pressure: baro is stale (age 31.0 s, limit 30 s)\n']);

  clock.advance(30_000);
  const stale = 'weather is stale (age 61.0 s, limit 60 s)';
  const [proxyStale, watcherStale] = await texts(d);
  assert.is(proxyStale, indi(0, `${stale}; rule wind cannot be judged: ${stale}`));
  assert.is(watcherStale.split('\n')[0], 'forecast=2');
}));

test.run();
