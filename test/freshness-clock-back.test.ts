import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readingAgeMs } from '../lib/reading-age.js';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The clock stepped back (an NTP correction, a bad RTC at boot): no age is negative anywhere
// and a dead sensor turns stale on time, judged by the time since the daemon received its
// reading on the monotonic clock as well as by its ts (docs/http-api.md, freshness).

const T0 = '2026-03-18T00:00:00.000Z';
const HOUR = 3_600_000;
const flags = { maxAge: 'weather=60' };

// [name, tsMs, receivedMono, now, nowMono, start (mono, wall), receivedAt, age]
const AGES: Array<[string, number, number, number, number, [number, number], number, number | undefined]> = [
  ['clock steady: by ts', 1000, 0, 11_000, 10_000, [0, 0], NaN, 10_000],
  ['clock stepped back an hour: time since received', 1000, 0, 11_000 - HOUR, 10_000, [0, 0], NaN, 10_000],
  ['clock stepped forward: by ts (older)', 1000, 0, 11_000 + HOUR, 10_000, [0, 0], NaN, 10_000 + HOUR],
  ['caller ts ahead of the clock: since received, never negative', 60_000, 500, 1000, 1500, [0, 0], NaN, 1000],
  ['caller ts in the past: by ts', 0, 0, 100_000, 10, [0, 0], NaN, 100_000],
  ['recovered at start-up, clock stepped back since: since the start', 1000, NaN, 1500, 7000, [2000, 2000], NaN, 5000],
  ['recovered, ts ahead, receipt known: since the receipt', 50_000, NaN, 20_000, 7000, [2000, 15_000], 5000, 15_000],
  ['recovered, ts ahead, receipt known, start later than it: since the start', 50_000, NaN, 20_000, 9000, [2000, 15_000], 19_000, 7000],
  ['recovered, ts ahead of the clock at the start, receipt not known: cannot be judged', 50_000, NaN, 20_000, 7000, [2000, 15_000], NaN, undefined],
  ['recovered, ts ahead, receipt ahead of the clock (stepped back): cannot be judged', 50_000, NaN, 20_000, 7000, [2000, 15_000], 30_000, undefined],
  ['no monotonic clock: by ts, never negative', 5000, NaN, 1000, NaN, [NaN, NaN], NaN, 0],
  ['no monotonic clock, receipt known: since the receipt', 5000, NaN, 1000, NaN, [NaN, NaN], 400, 600],
  ['unreadable ts', NaN, 0, 1000, 1000, [0, 0], NaN, undefined],
  ['a fraction of a ms since received is cut', 1000, 0.4, 1000, 7.9, [0, 0], NaN, 7],
];

for (const [name, ts, received, now, mono, [startMono, startWall], receivedAt, age] of AGES) {
  test(`readingAgeMs: ${name}`, () => assert.is(readingAgeMs(ts, received, now, mono, { mono: startMono, wall: startWall }, receivedAt), age));
}

/** The freshness, X-Meridian-Age, /status stale and /metrics age of `weather`, as one row. */
async function ages(d: TestDaemon): Promise<unknown[]> {
  const current = (await request(d.url, '/current?freshness=true')).json.freshness.weather;
  const one = await request(d.url, '/current/weather');
  const status = (await request(d.url, '/status')).json;
  const metric = /^meridian_reading_age_seconds\{type="weather"\} (\S+)$/m.exec((await request(d.url, '/metrics')).text)?.[1];
  return [current, one.headers['x-meridian-age'], one.headers['x-meridian-stale'], status.stale, metric];
}

test('the clock steps back an hour: ages go on from the reading, never negative, and the dead sensor is stale after its 60 s', async () => {
  const clock = new ManualClock(T0);
  const d = await startTestDaemon({ clock, env: { TZ: 'UTC' }, flags, freshnessIntervalMs: 0 });
  try {
    const reading = await postEvent(d.url, { type: 'weather', data: 1 });
    clock.advance(10_000);
    assert.equal(await ages(d), [{ age_s: 10, max_age_s: 60, max_age_from: 'rule', stale: false }, '10', 'false', 0, '10']);
    clock.step(-HOUR);
    assert.equal(await ages(d), [{ age_s: 10, max_age_s: 60, max_age_from: 'rule', stale: false }, '10', 'false', 0, '10']);
    clock.advance(50_500);
    assert.equal(await ages(d), [{ age_s: 60.5, max_age_s: 60, max_age_from: 'rule', stale: true }, '60.5', 'true', 1, '60.5']);
    d.daemon.freshness.watch.check();
    const stale = (await request(d.url, '/current/meridian.stale')).json;
    assert.equal(stale.data, { type: 'weather', age_s: 60.5, max_age_s: 60, max_age_from: 'rule', last_seq: 1, last_ts: reading.json.ts, last_run_id: null,
      stale_since: new Date(Date.parse(T0) - HOUR + 60_000).toISOString() });
    const next = await postEvent(d.url, { type: 'weather', data: 2 });
    assert.is(next.json.ts, new Date(Date.parse(T0) - HOUR + 60_500).toISOString());
    assert.equal((await ages(d)).slice(0, 4), [{ age_s: 0, max_age_s: 60, max_age_from: 'rule', stale: false }, '0', 'false', 0]);
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
});

test('a reading recovered at a start with the clock an hour back: its age cannot be judged, stale at once (and 61 s on)', async () => {
  const siteDir = tempDir();
  let d: TestDaemon | undefined;
  try {
    d = await startTestDaemon({ siteDir, clock: new ManualClock(T0), env: { TZ: 'UTC' }, flags });
    await postEvent(d.url, { type: 'weather', data: 1 });
    await d.close();
    const clock = new ManualClock(Date.parse(T0) - HOUR);
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' }, flags, freshnessIntervalMs: 0 });
    const unknown = [{ age_s: null, max_age_s: 60, max_age_from: 'rule', stale: true }, undefined, 'true', 1, undefined];
    assert.equal(await ages(d), unknown, 'received an hour "later" than now: how long it was held is not known');
    clock.advance(61_000);
    assert.equal(await ages(d), unknown);
  } finally {
    await d?.close();
    removeDir(siteDir);
  }
});

test('a caller ts an hour ahead of the daemon: age 0, then the time since it was received; stale on time', async () => {
  const clock = new ManualClock(T0);
  const d = await startTestDaemon({ clock, env: { TZ: 'UTC' }, flags, freshnessIntervalMs: 0 });
  try {
    await postEvent(d.url, { type: 'weather', data: 1, ts: new Date(Date.parse(T0) + HOUR).toISOString() });
    assert.equal(await ages(d), [{ age_s: 0, max_age_s: 60, max_age_from: 'rule', stale: false }, '0', 'false', 0, '0']);
    clock.advance(75_000);
    assert.equal(await ages(d), [{ age_s: 75, max_age_s: 60, max_age_from: 'rule', stale: true }, '75', 'true', 1, '75']);
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
});

test.run();
