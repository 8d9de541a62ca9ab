import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordedEvent } from '../daemon/storage/store.js';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// Learned staleness (issue 24): with no `--max-age` rule and no reading's `max_age_s`, a type
// seen 5 intervals apart gets max(5 s, 5 x the median of its last 20 intervals), in tenths of a
// second, as `max_age_from: "learned"` (docs/configuration.md#max-age). A sensor that stops
// turns stale on its own, and `meridian.stale` is recorded within 1 s of its limit passing.

const T0 = '2026-03-17T20:00:00.000Z';
const SITE_FILE = 'site_20260317.ndjson';

function withDaemon(maxAge: string | undefined, fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, flags: { maxAge }, freshnessIntervalMs: 0 }, (d) => fn(d, clock));
}

/** Post `type` once, then once after each interval (ms) on the manual clock. */
async function postAt(d: TestDaemon, clock: ManualClock, type: string, intervals: readonly number[], extra: object = {}): Promise<void> {
  assert.is((await postEvent(d.url, { type, data: 1, ...extra })).status, 200);
  for (const ms of intervals) {
    clock.advance(ms);
    assert.is((await postEvent(d.url, { type, data: 1, ...extra })).status, 200);
  }
}

const freshnessOf = async (d: TestDaemon, type: string) => (await request(d.url, '/current?freshness=true')).json.freshness[type];

/** Resolves with the next recorded event of `type` (the store's own notification; no polling). */
function nextRecorded(d: TestDaemon, type: string): Promise<RecordedEvent> {
  return new Promise((resolve) => {
    const stop = d.daemon.store.onRecorded((event) => {
      if (event.reading.type === type) {
        stop();
        resolve(event);
      }
    });
  });
}

/** `promise`, or a rejection naming `what` after `ms` (a test that would wait for ever fails instead). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const ones = (n: number, ms: number) => Array.from({ length: n }, () => ms);

// [name, intervals (ms), the limit (s) or null for none]
const CADENCES: [string, number[], number | null][] = [
  ['posted once: no limit', [], null],
  ['4 intervals: not yet', ones(4, 1000), null],
  ['5 intervals of 1 s: the 5 s floor', ones(5, 1000), 5],
  ['5 intervals of 0.2 s: the floor', ones(5, 200), 5],
  ['5 intervals of 10 s: 50 s', ones(5, 10_000), 50],
  ['1.234 s: 6.17 rounded to 6.2', ones(5, 1234), 6.2],
  ['one long gap is not the median', [2000, 2000, 600_000, 2000, 2000], 10],
  ['an even count: the mean of the middle two', [1000, 1000, 1000, 3000, 3000, 3000], 10],
  ['only the last 20 intervals count', [...ones(20, 60_000), ...ones(20, 2000)], 10],
  ['the last 20 with 11 slow: the slow median', [...ones(9, 2000), ...ones(11, 60_000)], 300],
];

for (const [name, intervals, limit] of CADENCES) {
  test(`learned: ${name}`, () => withDaemon(undefined, async (d, clock) => {
    await postAt(d, clock, 'w', intervals);
    const from = limit === null ? null : 'learned';
    assert.equal(await freshnessOf(d, 'w'), { age_s: 0, max_age_s: limit, max_age_from: from, stale: false });
    assert.equal((await request(d.url, '/status')).json.learned, limit === null ? {} : { w: limit });
    const one = await request(d.url, '/current/w');
    assert.equal([one.headers['x-meridian-max-age'], one.headers['x-meridian-max-age-from']], limit === null ? [undefined, undefined] : [String(limit), 'learned']);
  }));
}

test('every source of a limit, exactly: rule, reading, learned, none, and the daemon\'s own types', () => withDaemon('ruled=60,quiet=none', async (d, clock) => {
  for (const type of ['ruled', 'quiet', 'own', 'learnt']) {
    await postAt(d, clock, type, ones(5, 1000), type === 'own' ? { max_age_s: 30 } : {});
  }
  const freshness = (await request(d.url, '/current?freshness=true')).json.freshness;
  assert.equal(freshness, {
    learnt: { age_s: 0, max_age_s: 5, max_age_from: 'learned', stale: false },
    own: { age_s: 5, max_age_s: 30, max_age_from: 'reading', stale: false },
    quiet: { age_s: 10, max_age_s: null, max_age_from: null, stale: false },
    ruled: { age_s: 15, max_age_s: 60, max_age_from: 'rule', stale: false },
  });
  assert.equal((await request(d.url, '/status')).json.learned, { learnt: 5 });
  // a reading without its own limit falls back to the learned one
  await postEvent(d.url, { type: 'own', data: 2 });
  assert.equal(await freshnessOf(d, 'own'), { age_s: 0, max_age_s: 5, max_age_from: 'learned', stale: false });
  assert.equal((await request(d.url, '/status')).json.learned, { learnt: 5, own: 5 });
}));

test('readings received at one instant (one batch) are one sighting; make_current false readings are none', () => withDaemon(undefined, async (d, clock) => {
  for (let i = 0; i < 6; i++) {
    const body = [{ type: 'b', data: i }, { type: 'b', data: i }, { type: 'b', data: i, make_current: false }];
    assert.is((await request(d.url, '/events', { method: 'POST', body })).status, 200);
    assert.is((await postEvent(d.url, { type: 'n', data: i, make_current: false })).status, 200);
    clock.advance(3000);
  }
  assert.equal((await request(d.url, '/status')).json.learned, { b: 15 });
}));

test('a stopped 1 Hz sensor (injected clock): stale once 5 s passed, meridian.stale names the learned limit; fresh with its next reading', () => withDaemon(undefined, async (d, clock) => {
  await postAt(d, clock, 'dome', ones(5, 1000));
  clock.advance(5000);
  d.daemon.freshness.watch.check();
  assert.equal(await freshnessOf(d, 'dome'), { age_s: 5, max_age_s: 5, max_age_from: 'learned', stale: false });
  clock.advance(1);
  const staleEvent = nextRecorded(d, 'meridian.stale');
  d.daemon.freshness.watch.check();
  assert.equal(JSON.parse((await staleEvent).reading.json).data, {
    type: 'dome', age_s: 5.001, max_age_s: 5, max_age_from: 'learned', last_seq: 6, last_ts: '2026-03-17T20:00:05.000Z', last_run_id: null,
    stale_since: '2026-03-17T20:00:10.000Z',
  });
  assert.equal((await request(d.url, '/status')).json.stale, 1);
  const freshEvent = nextRecorded(d, 'meridian.fresh');
  await postEvent(d.url, { type: 'dome', data: 2 });
  // the 5 s gap is the newest interval: the median of 1,1,1,1,1,5 s is still 1 s
  assert.equal(JSON.parse((await freshEvent).reading.json).data.max_age_s, 5);
  assert.equal(readLines(path.join(d.siteDir, SITE_FILE)).map((l) => (l as { type: string }).type),
    ['dome', 'dome', 'dome', 'dome', 'dome', 'dome', 'meridian.stale', 'dome', 'meridian.fresh']);
  // recorded, not current: the default GET /current is the original service's body, with the types posted only
  assert.equal(Object.keys((await request(d.url, '/current?freshness=false')).json.current), ['dome']);
  assert.is((await request(d.url, '/current/meridian.stale')).status, 404);
}));

test('a turn by a configured limit is current as before (a rule named it)', () => withDaemon('dome=5', async (d, clock) => {
  await postAt(d, clock, 'dome', ones(1, 1000));
  clock.advance(6000);
  const staleEvent = nextRecorded(d, 'meridian.stale');
  d.daemon.freshness.watch.check();
  assert.is(JSON.parse((await staleEvent).reading.json).data.max_age_from, 'rule');
  assert.equal(Object.keys((await request(d.url, '/current?freshness=false')).json.current).sort(), ['dome', 'meridian.stale']);
}));

test('a restart keeps the learned limits (.meridian/learned-limits.json) until the type is learned again', async () => {
  const clock = new ManualClock(T0);
  const siteDir = tempDir();
  const opts = { siteDir, clock, env: { TZ: 'UTC' }, freshnessIntervalMs: 0 };
  let d: TestDaemon | undefined = await startTestDaemon(opts);
  try {
    await postAt(d, clock, 'w', ones(5, 1000));
    assert.equal((await request(d.url, '/status')).json.learned, { w: 5 });
    await d.close();
    clock.advance(2000);
    d = await startTestDaemon(opts);
    assert.equal(await freshnessOf(d, 'w'), { age_s: 2, max_age_s: 5, max_age_from: 'learned', stale: false });
    assert.equal((await request(d.url, '/status')).json.learned, { w: 5 });
    // the recovered reading (received at T0+5 s) and four more, 3 s apart from T0+10 s: 4 intervals, still the kept limit; the fifth learns
    for (let i = 0; i < 4; i++) {
      clock.advance(3000);
      await postEvent(d.url, { type: 'w', data: 1 });
    }
    assert.equal((await request(d.url, '/status')).json.learned, { w: 5 });
    clock.advance(3000);
    await postEvent(d.url, { type: 'w', data: 1 });
    assert.equal((await request(d.url, '/status')).json.learned, { w: 15 });
  } finally {
    await d?.close();
    removeDir(siteDir);
  }
});

test('a stopped 1 Hz sensor with no configuration (real clock): meridian.stale within 10 s of its last reading, within 1 s of the limit passing', async () => {
  // the poll is an hour: only the timer to the next limit passing can find it in time
  const d = await startTestDaemon({ freshnessIntervalMs: 3_600_000 });
  try {
    let last = 0;
    for (let i = 0; i < 6; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() - last)));
      last = Date.now();
      assert.is((await postEvent(d.url, { type: 'sensor', data: i })).status, 200);
    }
    const staleEvent = within(nextRecorded(d, 'meridian.stale'), 10_000, 'meridian.stale');
    const recorded = JSON.parse((await staleEvent).reading.json);
    const late = Date.parse(recorded.ts) - Date.parse(recorded.data.stale_since);
    assert.equal([recorded.data.type, recorded.data.max_age_s, recorded.data.max_age_from], ['sensor', 5, 'learned']);
    assert.ok(late >= 0 && late <= 1000, `recorded ${late} ms after the limit passed`);
    assert.ok(Date.parse(recorded.ts) - last <= 10_000, 'within 10 s of the last reading');
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
});

test('a reading\'s own short limit (real clock): meridian.stale within 1 s of it passing, the poll an hour away', async () => {
  const d = await startTestDaemon({ freshnessIntervalMs: 3_600_000, flags: { maxAge: 'other=600' } });
  try {
    const staleEvent = within(nextRecorded(d, 'meridian.stale'), 5000, 'meridian.stale');
    assert.is((await postEvent(d.url, { type: 'quick', data: 1, max_age_s: 1.5 })).status, 200);
    const recorded = JSON.parse((await staleEvent).reading.json);
    const late = Date.parse(recorded.ts) - Date.parse(recorded.data.stale_since);
    assert.equal([recorded.data.type, recorded.data.max_age_s, recorded.data.max_age_from], ['quick', 1.5, 'reading']);
    assert.ok(late >= 0 && late <= 1000, `recorded ${late} ms after the limit passed`);
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
});

test.run();
