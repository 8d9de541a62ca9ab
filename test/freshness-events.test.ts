import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordedEvent } from '../daemon/storage/store.js';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir } from './helpers/tmp.js';

// The files say when readings were missing (issue 14): one `meridian.stale` event when a
// type turns stale, one `meridian.fresh` when it recovers, in the active target's file,
// ordinary current envelopes that never turn stale themselves.

const T0 = '2026-03-17T20:00:00.000Z';
const SITE_FILE = 'site_20260317.ndjson';

function withDaemon(maxAge: string, fn: (d: TestDaemon, clock: ManualClock) => Promise<void>, intervalMs = 0): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, flags: { maxAge }, freshnessIntervalMs: intervalMs }, (d) => fn(d, clock));
}

const siteLines = (d: TestDaemon) => readLines(path.join(d.siteDir, SITE_FILE)) as Array<Record<string, any>>;
const eventsOf = (lines: Array<Record<string, any>>, type: string) => lines.filter((l) => l.type === type);

/** Resolves with the next recorded event of `type` (the store's own notification; no polling). */
function nextRecorded(d: TestDaemon, type: string): Promise<RecordedEvent> {
  return new Promise((resolve) => {
    const stop = d.daemon.store.onRecorded((event) => {
      if (event.reading.envelope.type === type) {
        stop();
        resolve(event);
      }
    });
  });
}

test('a type turning stale is recorded once with its age and last seq; a new reading records it fresh', () => withDaemon('power=90,*=1', async (d, clock) => {
  const power = (await postEvent(d.url, { type: 'power', data: { mains: true } })).json;
  clock.advance(90_000);
  d.daemon.freshness.watch.check();
  assert.equal(eventsOf(siteLines(d), 'meridian.stale'), [], 'at its limit a reading is not stale yet');
  clock.advance(1);
  const staleEvent = nextRecorded(d, 'meridian.stale');
  d.daemon.freshness.watch.check();
  const recorded = await staleEvent;
  assert.is(recorded.file, path.join(d.siteDir, SITE_FILE));
  clock.advance(30_000);
  d.daemon.freshness.watch.check();
  d.daemon.freshness.watch.check();
  const freshEvent = nextRecorded(d, 'meridian.fresh');
  const next = (await postEvent(d.url, { type: 'power', data: { mains: true } })).json;
  await freshEvent;
  const lines = siteLines(d);
  assert.equal(lines.map((l) => [l.seq, l.type]), [[1, 'power'], [2, 'meridian.stale'], [3, 'power'], [4, 'meridian.fresh']]);
  assert.equal(lines[1], {
    seq: 2, ts: '2026-03-17T20:01:30.001Z', type: 'meridian.stale', meta: {},
    data: { type: 'power', age_s: 90.001, max_age_s: 90, max_age_from: 'rule', last_seq: power.seq, last_ts: T0, last_run_id: null, stale_since: '2026-03-17T20:01:30.000Z' },
  });
  assert.equal(lines[3], {
    seq: 4, ts: '2026-03-17T20:02:00.001Z', type: 'meridian.fresh', meta: {},
    data: { type: 'power', age_s: 0, max_age_s: 90, max_age_from: 'rule', last_seq: next.seq, last_ts: '2026-03-17T20:02:00.001Z', last_run_id: null, stale_since: '2026-03-17T20:01:30.000Z' },
  });
  // the events are current readings, never judged (the `*=1` rule does not reach them)
  clock.advance(3_600_000);
  const again = nextRecorded(d, 'meridian.stale');
  d.daemon.freshness.watch.check();
  await again;
  const current = (await request(d.url, '/current?freshness=true')).json;
  assert.equal(Object.keys(current.current), ['meridian.fresh', 'meridian.stale', 'power']);
  assert.equal(current.freshness['meridian.fresh'], { age_s: 3600, max_age_s: null, max_age_from: null, stale: false });
  assert.equal(eventsOf(siteLines(d), 'meridian.stale').map((l) => l.data.type), ['power', 'power']);
}));

test('the timer finds a type turning stale on its own (the injected clock, no request)', () => withDaemon('weather=180', async (d, clock) => {
  await postEvent(d.url, { type: 'weather', data: 1 });
  const staleEvent = nextRecorded(d, 'meridian.stale');
  clock.advance(181_000);
  const recorded = await staleEvent;
  assert.equal(JSON.parse(recorded.reading.json).data.age_s >= 181, true);
  assert.is(eventsOf(siteLines(d), 'meridian.stale').length, 1);
}, 10));

test('during a run the events go to the run file, naming the run of the last reading', () => withDaemon('dome=60', async (d, clock) => {
  const run = (await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'n1' } })).json;
  const dome = (await postEvent(d.url, { type: 'dome', data: 'open' })).json;
  clock.advance(61_000);
  const staleEvent = nextRecorded(d, 'meridian.stale');
  d.daemon.freshness.watch.check();
  const recorded = await staleEvent;
  assert.is(recorded.file, path.join(run.run_dir, 'telemetry.ndjson'));
  const lines = readLines(recorded.file) as Array<Record<string, any>>;
  assert.equal(lines[1], {
    seq: 2, ts: '2026-03-17T20:01:01.000Z', type: 'meridian.stale', meta: { run_id: 'n1' },
    data: { type: 'dome', age_s: 61, max_age_s: 60, max_age_from: 'rule', last_seq: dome.seq, last_ts: T0, last_run_id: 'n1', stale_since: '2026-03-17T20:01:00.000Z' },
  });
}));

test('a type the limits expect but never saw is recorded stale once its limit has passed since the start', () => withDaemon('dome=60', async (d, clock) => {
  d.daemon.freshness.watch.check();
  clock.advance(60_000);
  d.daemon.freshness.watch.check();
  assert.is((await request(d.url, '/current?type=dome&freshness=true')).json.freshness.dome.stale, true, 'stale in the API at once');
  assert.equal(d.daemon.store.view.size, 0, 'no event within its limit');
  clock.advance(1);
  const staleEvent = nextRecorded(d, 'meridian.stale');
  d.daemon.freshness.watch.check();
  assert.equal(JSON.parse((await staleEvent).reading.json).data,
    { type: 'dome', age_s: null, max_age_s: 60, max_age_from: 'rule', last_seq: null, last_ts: null, last_run_id: null, stale_since: '2026-03-17T20:01:00.000Z' });
}));

test('after a restart a type still stale is recorded stale again, once', async () => {
  const clock = new ManualClock(T0);
  const opts = { clock, env: { TZ: 'UTC' }, flags: { maxAge: 'power=90' }, freshnessIntervalMs: 0 };
  const first = await startTestDaemon(opts);
  try {
    await postEvent(first.url, { type: 'power', data: 1 });
    clock.advance(100_000);
    const staleEvent = nextRecorded(first, 'meridian.stale');
    first.daemon.freshness.watch.check();
    await staleEvent;
  } finally {
    await first.close();
  }
  const second = await startTestDaemon({ ...opts, siteDir: first.siteDir });
  try {
    // start() looked once already; the stale event it records is the second in the file
    await new Promise<void>((resolve) => {
      const done = () => eventsOf(siteLines(second), 'meridian.stale').length === 2;
      if (done()) return resolve();
      const stop = second.daemon.store.onRecorded(() => { if (done()) { stop(); resolve(); } });
    });
    second.daemon.freshness.watch.check();
    assert.equal(siteLines(second).map((l) => [l.seq, l.type]), [[1, 'power'], [2, 'meridian.stale'], [3, 'meridian.stale']]);
  } finally {
    await second.close();
    removeDir(first.siteDir);
  }
});

test('without --max-age no event is ever recorded', () => withDaemon('*=none', async (d, clock) => {
  await postEvent(d.url, { type: 'power', data: 1 });
  clock.advance(86_400_000);
  d.daemon.freshness.watch.check();
  assert.equal(siteLines(d).map((l) => l.type), ['power']);
}));

test.run();
