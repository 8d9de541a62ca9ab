import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon } from '../daemon/server.js';
import { resolveDaemonConfig } from '../lib/config.js';
import { ERROR_CATALOGUE } from '../lib/errors.js';
import { silentLogger } from '../lib/log.js';
import { VERSION } from '../lib/version.js';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, withTestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, sinkStatus, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// GET /metrics after a known workload: every meridian_* value exact.

const T0 = '2026-03-17T20:05:48.955Z';

/** The samples of a Prometheus text exposition: `name{labels}` -> value. */
async function scrape(url: string, headers?: Record<string, string>): Promise<Map<string, number>> {
  const answer = await request(url, '/metrics', { headers });
  assert.is(answer.status, 200);
  assert.is(answer.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  const samples = new Map<string, number>();
  for (const line of answer.text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** The samples whose name starts with `prefix`, as an object (for exact comparisons). */
function family(samples: Map<string, number>, prefix: string): Record<string, number> {
  return Object.fromEntries([...samples].filter(([name]) => name.startsWith(prefix)));
}

test('after a known workload every meridian metric has its exact value', () => {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, flags: { fsync: 'always', maxAge: 'weather=20,power=60' }, freshnessIntervalMs: 0 }, async (d) => {
    const dayFile = path.join(d.siteDir, 'site_20260317.ndjson');
    fs.symlinkSync('/dev/full', dayFile);
    assert.is((await postEvent(d.url, { type: 'weather', data: 0 })).status, 503);
    fs.unlinkSync(dayFile);
    assert.is((await postEvent(d.url, { type: 'weather', data: 1 })).status, 200);
    assert.is((await postEvent(d.url, { type: 'dome', data: 'open' })).status, 200);
    assert.is((await postEvent(d.url, { data: 1 })).status, 422);
    assert.is((await request(d.url, '/current/nope')).status, 404);
    assert.is((await request(d.url, '/run/start', { body: { run_id: 'r1' } })).status, 200);
    clock.advance(20_000);
    for (let i = 0; i < 2; i++) assert.is((await postEvent(d.url, { type: 'camera', data: i })).status, 200);
    clock.advance(10_000);

    const m = await scrape(d.url);
    assert.equal(family(m, 'meridian_events_recorded_total'), {
      'meridian_events_recorded_total{target="site",storage="permanent"}': 2,
      'meridian_events_recorded_total{target="site",storage="ephemeral"}': 0,
      'meridian_events_recorded_total{target="run",storage="permanent"}': 2,
      'meridian_events_recorded_total{target="run",storage="ephemeral"}': 0,
    });
    const rejected = family(m, 'meridian_requests_rejected_total');
    assert.is(Object.keys(rejected).length, Object.keys(ERROR_CATALOGUE).length);
    assert.equal(Object.fromEntries(Object.entries(rejected).filter(([, v]) => v !== 0)), {
      'meridian_requests_rejected_total{code="NO_READING"}': 1,
      'meridian_requests_rejected_total{code="INVALID_BODY"}': 1,
      'meridian_requests_rejected_total{code="DISK_FULL"}': 1,
    });
    assert.equal(family(m, 'meridian_write_failures_total'), {
      'meridian_write_failures_total{target="site"}': 1, 'meridian_write_failures_total{target="run"}': 0,
    });
    assert.is(m.get('meridian_sync_failures_total'), 0);
    // --fsync always, one request at a time: one sync round per recorded event
    assert.is(m.get('meridian_sync_duration_seconds_count'), 4);
    assert.is(d.daemon.store.syncRounds, 4);
    const requests = Object.entries(family(m, 'meridian_http_request_duration_seconds_count'))
      .map(([name, v]) => `${name.slice(name.indexOf('{'))} ${v}`).sort();
    assert.equal(requests, [
      '{route="/current/:type",method="GET",status="404"} 1',
      '{route="/event",method="POST",status="200"} 4',
      '{route="/event",method="POST",status="422"} 1',
      '{route="/event",method="POST",status="503"} 1',
      '{route="/run/start",method="POST",status="200"} 1',
    ]);
    assert.is(m.get('meridian_current_types'), 3);
    assert.is(m.get('meridian_run_active'), 1);
    assert.is(m.get('meridian_disk_full'), 0, 'a write fitted after the full disk');
    assert.is(m.get('meridian_current_stale_types'), 2, 'weather 30 s old (limit 20), power expected and missing');
    assert.equal(family(m, 'meridian_reading_age'), {
      'meridian_reading_age_types_omitted': 0,
      'meridian_reading_age_seconds{type="camera"}': 10,
      'meridian_reading_age_seconds{type="dome"}': 30,
      'meridian_reading_age_seconds{type="weather"}': 30,
    });
    assert.is(m.get(`meridian_info{version="${VERSION}"}`), 1);
    assert.ok(m.get('process_cpu_user_seconds_total')! > 0);
    assert.ok(m.get('nodejs_heap_size_total_bytes')! > 0);
    assert.ok(m.has('nodejs_eventloop_lag_p99_seconds'));

    // the scrape itself is counted once it is answered
    const again = await scrape(d.url);
    assert.is(again.get('meridian_http_request_duration_seconds_count{route="/metrics",method="GET",status="200"}'), 1);
  });
});

test('reading ages: only the first N types by name get a series; the rest are counted', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(T0);
  const config = { ...resolveDaemonConfig({ host: '127.0.0.1', siteDir }, { TZ: 'UTC' }, siteDir), port: 0 };
  const daemon = await startDaemon(config, { clock, logger: silentLogger, snapshotIntervalMs: 0, maxAgeTypes: 2 });
  try {
    const url = `http://127.0.0.1:${daemon.port}`;
    for (const type of ['wind', 'dome', 'camera']) await postEvent(url, { type, data: 1 });
    clock.advance(1500);
    assert.equal(family(await scrape(url), 'meridian_reading_age'), {
      'meridian_reading_age_types_omitted': 1,
      'meridian_reading_age_seconds{type="camera"}': 1.5,
      'meridian_reading_age_seconds{type="dome"}': 1.5,
    });
  } finally {
    await daemon.close();
    removeDir(siteDir);
  }
});

test('ephemeral events are counted apart from permanent ones', () => withTestDaemon({}, async (d) => {
  for (let i = 0; i < 2; i++) await postEvent(d.url, { type: 'wind', data: i, store_permanently: false });
  await postEvent(d.url, { type: 'dome', data: 'open' });
  await request(d.url, '/run/start', { body: { run_id: 'r1' } });
  await postEvent(d.url, { type: 'camera', data: 1, store_permanently: false });
  assert.equal(family(await scrape(d.url), 'meridian_events_recorded_total'), {
    'meridian_events_recorded_total{target="site",storage="permanent"}': 1,
    'meridian_events_recorded_total{target="site",storage="ephemeral"}': 2,
    'meridian_events_recorded_total{target="run",storage="permanent"}': 0,
    'meridian_events_recorded_total{target="run",storage="ephemeral"}': 1,
  });
}));

test('sink metrics after a known workload against a real HTTP peer: lag, delivered, retries, dead letters, state, ephemeral', async () => {
  const clock = new ManualClock(T0);
  const peer = await startPeer({ refuse: (r) => r.envelope.data === 'poison' });
  // one retry only: the next is ten minutes away, so the count is exact when scraped
  const toml = `[[sink]]\nname = "peer"\nurl = "${peer.url}"\nbatch_records = 50\nlinger_ms = 20\nretry_min_ms = 600000\nretry_max_ms = 600000\ntimeout_ms = 3000\nfailing_after_s = 0`;
  const d = await startTestDaemon({ clock, forward: sinksOf(toml) });
  const sink = (name: string) => `${name}{sink="peer",kind="http"}`;
  const states = (ok: number, retrying: number, failing: number) => ({
    'meridian_sink_state{sink="peer",kind="http",state="ok"}': ok,
    'meridian_sink_state{sink="peer",kind="http",state="retrying"}': retrying,
    'meridian_sink_state{sink="peer",kind="http",state="failing"}': failing,
    'meridian_sink_state{sink="peer",kind="http",state="skipped"}': 0,
  });
  try {
    await postEvent(d.url, { type: 'wind', data: 1, store_permanently: false });
    await waitFor('the ephemeral event sent', async () => ((await sinkStatus(d.url, 'peer')).ephemeral_sent === 1 ? true : undefined));
    for (let i = 1; i <= 10; i++) await postEvent(d.url, { type: 'weather', data: i === 5 ? 'poison' : i });
    await caughtUp(d.url, 'peer');
    assert.equal(family(await scrape(d.url), 'meridian_sink_'), {
      [sink('meridian_sink_lag_events')]: 0, [sink('meridian_sink_lag_seconds')]: 0, [sink('meridian_sink_delivered_total')]: 9,
      [sink('meridian_sink_retries_total')]: 0, [sink('meridian_sink_dead_letters_total')]: 1,
      [sink('meridian_sink_ephemeral_sent_total')]: 1, [sink('meridian_sink_ephemeral_dropped_total')]: 0, ...states(1, 0, 0),
    });
    await peer.down();
    for (let i = 11; i <= 15; i++) await postEvent(d.url, { type: 'weather', data: i });
    await failing(d.url, 'peer');
    await postEvent(d.url, { type: 'wind', data: 2, store_permanently: false });
    clock.advance(12_500);
    assert.equal(family(await scrape(d.url), 'meridian_sink_'), {
      [sink('meridian_sink_lag_events')]: 5, [sink('meridian_sink_lag_seconds')]: 12.5, [sink('meridian_sink_delivered_total')]: 9,
      [sink('meridian_sink_retries_total')]: 1, [sink('meridian_sink_dead_letters_total')]: 1,
      [sink('meridian_sink_ephemeral_sent_total')]: 1, [sink('meridian_sink_ephemeral_dropped_total')]: 1, ...states(0, 0, 1),
    });
  } finally {
    await d.close();
    await peer.down();
    removeDir(d.siteDir);
  }
});

test('without sinks no meridian_sink_* series', () => withTestDaemon({}, async (d) => {
  assert.equal(family(await scrape(d.url), 'meridian_sink_'), {});
}));

test('each daemon has its own registry; with a token /metrics needs it', () => withTestDaemon({ flags: { token: 't0k' } }, (a) =>
  withTestDaemon({}, async (b) => {
    const auth = { authorization: 'Bearer t0k' };
    await postEvent(a.url, { type: 'x', data: 1 }, auth);
    assert.is((await request(a.url, '/metrics')).status, 401);
    assert.is((await scrape(a.url, auth)).get('meridian_events_recorded_total{target="site",storage="permanent"}'), 1);
    assert.is((await scrape(b.url)).get('meridian_events_recorded_total{target="site",storage="permanent"}'), 0);
  })));

test.run();
