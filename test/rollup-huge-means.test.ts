import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { tempDir } from './helpers/tmp.js';

// Means of numbers near a double's range (hostile G finding 4): the sums are scaled once they
// would pass it, so a mean and a time-weighted mean are never null while the true one is
// finite, in every tier (closed and open buckets, after a restart from the checkpoint) and in
// the night report (read from the tiers and from the readings).

const M = '1.7976931348623157e308';
const NOW = '2026-03-18T20:00:00.000Z';
const READINGS = [
  ['2026-03-17T20:00:00.000Z', `{"big":${M},"c":1e308,"t":1.5}`],
  ['2026-03-17T20:01:00.000Z', `{"big":${M},"c":-1e308,"t":2.5}`],
  // closes every tier's bucket of the night before
  ['2026-03-18T13:00:00.000Z', '{"t":3}'],
];

async function post(d: TestDaemon): Promise<void> {
  const body = READINGS.map(([ts, data]) => `{"type":"weather","ts":"${ts}","data":${data}}`).join('\n');
  const answer = await request(d.url, '/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
  assert.is(answer.status, 200, answer.text);
}

async function fields(d: TestDaemon, step: string, from: string, to: string): Promise<unknown> {
  const answer = await request(d.url, `/history?type=weather&step=${step}&from=${from}&to=${to}&fields=data.big,data.c`);
  assert.is(answer.status, 200, answer.text);
  return (JSON.parse(answer.text) as { buckets: { fields: unknown }[] }).buckets.map((b) => b.fields);
}

const big = (count: number, mean: number, twmean: number, gap: number) => ({ first: Number(M), last: Number(M), min: Number(M), max: Number(M), count, mean, twmean, gap_s: gap });

const HOUR = [{
  'data.big': big(2, Number(M), Number(M), 0),
  // 1e308 held 60 s, then -1e308 the rest of the hour
  'data.c': { first: 1e308, last: -1e308, min: -1e308, max: 1e308, count: 2, mean: 0, twmean: (60 - 3540) / 3600 * 1e308, gap_s: 0 },
}];

function near(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === 'number') {
    assert.type(actual, 'number', `${where}: ${String(actual)}`);
    const a = actual as number;
    assert.ok(a === expected || Math.abs(a - expected) <= 1e-9 * Math.abs(expected), `${where}: ${a} against ${expected}`);
  } else if (expected && typeof expected === 'object') {
    assert.equal(Object.keys(actual as object), Object.keys(expected), where);
    for (const [k, v] of Object.entries(expected)) near((actual as Record<string, unknown>)[k], v, `${where}.${k}`);
  } else assert.is(actual, expected, where);
}

test('means of readings near 1.8e308: finite in the 1m, 1h and night tiers, closed, open and after a restart', async () => {
  const clock = new ManualClock(NOW);
  const siteDir = tempDir();
  const first = await startTestDaemon({ clock, env: { TZ: 'UTC' }, siteDir, freshnessIntervalMs: 0 });
  try {
    await post(first);
    near(await fields(first, '1h', '2026-03-17T20:00:00Z', '2026-03-17T21:00:00Z'), HOUR, '1h');
    // the two readings of big: exactly the number (2 x M / 2 scaled back)
    const minute = await fields(first, '1m', '2026-03-17T20:00:00Z', '2026-03-17T20:02:00Z') as Record<string, { mean: number }>[];
    assert.equal(minute.map((f) => [f['data.big']!.mean, f['data.c']!.mean]), [[Number(M), 1e308], [Number(M), -1e308]]);
    const night = await fields(first, 'night', '2026-03-17T12:00:00Z', '2026-03-18T12:00:00Z') as Record<string, { mean: number; twmean: number }>[];
    assert.equal(night.map((f) => [f['data.big']!.mean, f['data.c']!.mean]), [[Number(M), 0]]);
    assert.type(night[0]!['data.c']!.twmean, 'number');
    // a big reading in the open bucket: its hold counted as of the clock
    const open = await request(first.url, '/event', { body: `{"type":"weather","ts":"2026-03-18T19:00:00.000Z","data":{"big":${M}}}`, headers: { 'content-type': 'application/json' } });
    assert.is(open.status, 200, open.text);
    near(await fields(first, '1h', '2026-03-18T19:00:00Z', '2026-03-18T20:00:00Z'), [{ 'data.big': big(1, Number(M), Number(M), 0), 'data.c': null }], 'open 1h');
  } finally {
    await first.close();
  }
  // withTestDaemon removes the site directory when done
  await withTestDaemon({ clock, env: { TZ: 'UTC' }, siteDir, freshnessIntervalMs: 0 }, async (d) => {
    // the open bucket's scaled sums come back from the checkpoint
    const more = await request(d.url, '/event', { body: `{"type":"weather","ts":"2026-03-18T19:30:00.000Z","data":{"big":${M}}}`, headers: { 'content-type': 'application/json' } });
    assert.is(more.status, 200, more.text);
    near(await fields(d, '1h', '2026-03-18T19:00:00Z', '2026-03-18T20:00:00Z'), [{ 'data.big': big(2, Number(M), Number(M), 0), 'data.c': null }], 'restarted 1h');
    near(await fields(d, '1h', '2026-03-17T20:00:00Z', '2026-03-17T21:00:00Z'), HOUR, 'restarted closed 1h');
  });
});

for (const rollups of ['on', 'off'] as const) {
  test(`the night report's weather means near 1.8e308 (rollups ${rollups}: ${rollups === 'on' ? 'from the tiers' : 'from the readings'})`, async () => {
    await withTestDaemon({ clock: new ManualClock(NOW), env: { TZ: 'UTC' }, flags: { rollups }, freshnessIntervalMs: 0 }, async (d) => {
      await post(d);
      const answer = await request(d.url, '/reports/night/20260317');
      assert.is(answer.status, 200, answer.text);
      const weather = (JSON.parse(answer.text) as { weather: { fields: Record<string, unknown> } }).weather.fields;
      near(weather, {
        big: { count: 2, min: Number(M), mean: Number(M), max: Number(M), series: [['2026-03-17T20:00:00.000Z', Number(M)]] },
        c: { count: 2, min: -1e308, mean: 0, max: 1e308, series: [['2026-03-17T20:00:00.000Z', 0]] },
        t: { count: 2, min: 1.5, mean: 2, max: 2.5, series: [['2026-03-17T20:00:00.000Z', 2]] },
      }, 'weather');
    });
  });
}

test.run();
