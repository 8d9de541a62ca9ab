import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { startIndi, type IndiServer } from './helpers/indi.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// INDI's own drivers (Debian's indi-bin, installed by .ci/run) pointed at the real daemon:
// indi_weather_safety_proxy reading GET /safety/indi and indi_watcher_weather reading GET
// /safety/watcher, both polled every second (WEATHER_UPDATE.PERIOD = 1). Each goes to Alert
// within one period + 1 s after the verdict turns unsafe (a rule raised by a POST) and after
// the required input goes stale, and back to Ok only once safe_for has passed.

const PROXY = 'Weather Safety Proxy';
const WATCHER = 'Weather Watcher';
const PROXY_LIGHT = `${PROXY}.WEATHER_STATUS.WEATHER_SAFETY`;
// the Watcher's forecast parameter carries the verdict (its OK range is 0..0: 2 is its danger zone)
const WATCHER_LIGHT = `${WATCHER}.WEATHER_STATUS.WEATHER_FORECAST`;
const PERIOD_MS = 1000;
const SAFE_FOR_MS = 3000;
const MAX_AGE_S = 8;
const CONFIG = `
[safety]
required = ["weather"]
safe_for = "${SAFE_FOR_MS / 1000}s"
[[safety.rule]]
name = "wind"
when = "weather.data.wind > 40"
clear = "weather.data.wind < 30"
[conditions]
temperature = { type = "weather", field = "data.t" }
windspeed = { type = "weather", field = "data.wind", unit = "km/h" }
`;

async function post(d: TestDaemon, data: string): Promise<number> {
  const answer = await request(d.url, '/event', { method: 'POST', body: `{"type":"weather","data":${data}}`, headers: { 'content-type': 'application/json' } });
  assert.is(answer.status, 200, answer.text);
  return Date.now();
}

async function connect(indi: IndiServer, d: TestDaemon): Promise<void> {
  await indi.set(`${PROXY}.WEATHER_SAFETY_URLS.WEATHER_SAFETY_URL=${d.url}/safety/indi`, `${PROXY}.SCRIPT_OR_CURL.Use script;Use url=Off;On`,
    `${WATCHER}.WATCH_SOURCE.URL=${d.url}/safety/watcher`);
  await indi.set(`${PROXY}.CONNECTION.CONNECT;DISCONNECT=On;Off`, `${WATCHER}.CONNECTION.CONNECT;DISCONNECT=On;Off`);
  await indi.waitFor(`${PROXY}.WEATHER_UPDATE.PERIOD`, '60', 10_000);
  await indi.waitFor(`${WATCHER}.WEATHER_UPDATE.PERIOD`, '60', 10_000);
  await indi.set(`${PROXY}.WEATHER_UPDATE.PERIOD=${PERIOD_MS / 1000}`, `${WATCHER}.WEATHER_UPDATE.PERIOD=${PERIOD_MS / 1000}`);
}

/** Both lights read `want`: the later of the two times each was first seen so. */
async function both(indi: IndiServer, want: string, deadlineMs: number): Promise<number> {
  const [a, b] = await Promise.all([indi.waitFor(PROXY_LIGHT, want, deadlineMs), indi.waitFor(WATCHER_LIGHT, want, deadlineMs)]);
  return Math.max(a, b);
}

test('the proxy and the Watcher follow the verdict: Alert within a period + 1 s, Ok only after safe_for', () =>
  withTestDaemon({ config: CONFIG, flags: { maxAge: `weather=${MAX_AGE_S}` } }, async (d) => {
    const indi = await startIndi(['indi_weather_safety_proxy', 'indi_watcher_weather'], [PROXY, WATCHER]);
    try {
      const first = await post(d, '{"t":10,"wind":12}');
      await connect(indi, d);
      // unsafe while safe_for runs: the drivers' first reads say Alert
      assert.is(await indi.get(PROXY_LIGHT), 'Alert');
      const ok = await both(indi, 'Ok', SAFE_FOR_MS + PERIOD_MS + 5000);
      assert.ok(ok - first >= SAFE_FOR_MS, `Ok ${ok - first} ms after the first reading, before safe_for`);
      assert.is(await indi.get(`${PROXY}.WEATHER_SAFETY_REASONS.Reasons`), '');

      // a rule raised by a POST
      const raised = await post(d, '{"t":10,"wind":50}');
      const alert = await both(indi, 'Alert', PERIOD_MS + 1000);
      assert.ok(alert - raised <= PERIOD_MS + 1000, `Alert ${alert - raised} ms after the raise`);
      assert.is(await indi.get(`${PROXY}.WEATHER_SAFETY_REASONS.Reasons`), 'rule wind: weather.data.wind > 40');

      // cleared: Ok only once safe_for has passed, then within a period + 1 s
      const cleared = await post(d, '{"t":10,"wind":12}');
      const okAgain = await both(indi, 'Ok', SAFE_FOR_MS + PERIOD_MS + 1000);
      assert.ok(okAgain - cleared >= SAFE_FOR_MS, `Ok ${okAgain - cleared} ms after the clear, before safe_for`);

      // the required input goes stale MAX_AGE_S after its last reading: Alert within a period + 1 s of that
      const staleAt = cleared + MAX_AGE_S * 1000;
      const staleAlert = await both(indi, 'Alert', staleAt - Date.now() + PERIOD_MS + 1000);
      assert.ok(staleAlert >= staleAt - 50 && staleAlert - staleAt <= PERIOD_MS + 1000, `Alert ${staleAlert - staleAt} ms after the input went stale`);
      const stale = '(weather is stale \\(age \\d+\\.\\d s, limit 8 s\\))';
      assert.match(await indi.get(`${PROXY}.WEATHER_SAFETY_REASONS.Reasons`) ?? '', new RegExp(`^${stale}; rule wind cannot be judged: ${stale}$`));
    } finally {
      await indi.stop();
    }
  }));

test('with a token: the proxy in script mode (curl -sf with the header, as integrations.md shows); Meridian gone: Alert after SOFT_ERROR_MAX failed reads', async () => {
  const dir = tempDir();
  const token = 's3cret-token';
  try {
    await withTestDaemon({ config: CONFIG, flags: { maxAge: `weather=${MAX_AGE_S}`, token } }, async (d) => {
      const script = path.join(dir, 'meridian-indi-safety');
      fs.writeFileSync(path.join(dir, 'token'), `${token}\n`);
      fs.writeFileSync(script, `#!/bin/sh\nexec curl -sf -H "Authorization: Bearer $(cat ${path.join(dir, 'token')})" ${d.url}/safety/indi\n`, { mode: 0o755 });
      const indi = await startIndi(['indi_weather_safety_proxy'], [PROXY]);
      try {
        const answer = await request(d.url, '/event', { method: 'POST', body: '{"type":"weather","data":{"t":10,"wind":12}}',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });
        assert.is(answer.status, 200);
        await indi.set(`${PROXY}.WEATHER_SAFETY_SCRIPTS.WEATHER_SAFETY_SCRIPT=${script}`, `${PROXY}.SOFT_ERROR_HYSTERESIS.SOFT_ERROR_MAX;SOFT_ERROR_RECOVERY=1;1`);
        await indi.set(`${PROXY}.CONNECTION.CONNECT;DISCONNECT=On;Off`);
        await indi.waitFor(`${PROXY}.WEATHER_UPDATE.PERIOD`, '60', 10_000);
        await indi.set(`${PROXY}.WEATHER_UPDATE.PERIOD=${PERIOD_MS / 1000}`);
        await indi.waitFor(PROXY_LIGHT, 'Ok', SAFE_FOR_MS + PERIOD_MS + 5000);
        // the daemon goes away: each read fails (curl prints nothing); the proxy retries every 5 s and gives up safe after 2
        await d.close();
        const gone = Date.now();
        const alert = await indi.waitFor(PROXY_LIGHT, 'Alert', 15_000);
        assert.ok(alert - gone <= PERIOD_MS + 5000 + 2000, `Alert ${alert - gone} ms after the daemon stopped`);
        assert.is(await indi.get(`${PROXY}.WEATHER_SAFETY_REASONS.Reasons`), 'Max softerrors reached while Weather was SAFE');
      } finally {
        await indi.stop();
      }
    });
  } finally {
    removeDir(dir);
  }
});

test.run();
