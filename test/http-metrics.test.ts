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
import { withTestDaemon } from './helpers/daemon.js';
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
      'meridian_requests_rejected_total{code="STORAGE_UNAVAILABLE"}': 1,
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

test('each daemon has its own registry; with a token /metrics needs it', () => withTestDaemon({ flags: { token: 't0k' } }, (a) =>
  withTestDaemon({}, async (b) => {
    const auth = { authorization: 'Bearer t0k' };
    await postEvent(a.url, { type: 'x', data: 1 }, auth);
    assert.is((await request(a.url, '/metrics')).status, 401);
    assert.is((await scrape(a.url, auth)).get('meridian_events_recorded_total{target="site",storage="permanent"}'), 1);
    assert.is((await scrape(b.url)).get('meridian_events_recorded_total{target="site",storage="permanent"}'), 0);
  })));

test.run();
