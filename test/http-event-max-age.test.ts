import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient } from '../client/index.js';
import type { RecordedEvent } from '../daemon/storage/store.js';
import { cli } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { afterComebacks } from './helpers/restart.js';
import { readLines } from './helpers/tmp.js';

// An event's own maximum age (issue 14): `max_age_s` on POST /event (and each event of POST
// /events), kept as `meta.max_age_s` of the envelope, overrides the type's --max-age for
// that reading only, everywhere the daemon judges freshness, and survives a restart. The
// daemon's clock is a ManualClock.

const T0 = '2026-03-17T20:00:00.000Z';
const SITE_FILE = 'site_20260317.ndjson';

function withDaemon(maxAge: string | undefined, fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, flags: { maxAge }, freshnessIntervalMs: 0 }, (d) => fn(d, clock));
}

const fresh = (age: number | null, max: number | null, stale: boolean, from: string | null = max === null ? null : 'reading') =>
  ({ age_s: age, max_age_s: max, max_age_from: from, stale });

/** Resolves with the next recorded event of `type` (the store's own notification). */
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

test('max_age_s overrides the type\'s limit for that reading only: /current, /current/{type}, /status', () => withDaemon('weather=180', async (d, clock) => {
  const posted = await postEvent(d.url, { type: 'weather', data: { temp_c: 4 }, max_age_s: 30, meta: { station: 'ws1' } });
  assert.is(posted.status, 200);
  assert.is(posted.text, `{"seq":1,"ts":"${T0}","type":"weather","data":{"temp_c":4},"meta":{"station":"ws1","max_age_s":30}}`);
  clock.advance(30_000);
  assert.equal((await request(d.url, '/current?freshness=true')).json.freshness, { weather: fresh(30, 30, false) }, 'at its limit: not stale yet');
  clock.advance(500);
  assert.equal((await request(d.url, '/current?freshness=true')).json.freshness, { weather: fresh(30.5, 30, true) });
  assert.equal(Object.keys((await request(d.url, '/current?stale=true')).json.current), ['weather']);
  const one = await request(d.url, '/current/weather');
  assert.equal([one.headers['x-meridian-age'], one.headers['x-meridian-max-age'], one.headers['x-meridian-stale'], one.headers['x-meridian-max-age-from']], ['30.5', '30', 'true', 'reading']);
  assert.is((await request(d.url, '/status')).json.stale, 1);

  const next = await postEvent(d.url, { type: 'weather', data: { temp_c: 5 } });
  assert.is(next.json.meta.max_age_s, undefined, 'the next reading carries none');
  clock.advance(60_000);
  assert.equal((await request(d.url, '/current?freshness=true')).json.freshness, { weather: fresh(60, 180, false, 'rule') }, 'back to --max-age');
  assert.is((await request(d.url, '/status')).json.stale, 0);
}));

test('max_age_s in place of a caller\'s meta.max_age_s; meta.max_age_s alone is honoured; null is the configured age', () => withDaemon('*=600', async (d, clock) => {
  const both = await postEvent(d.url, { type: 'a', data: 1, meta: { max_age_s: 5, station: 'ws1' }, max_age_s: 20 });
  assert.is(both.text, `{"seq":1,"ts":"${T0}","type":"a","data":1,"meta":{"max_age_s":20,"station":"ws1"}}`);
  const metaOnly = await postEvent(d.url, { type: 'b', data: 1, meta: { max_age_s: 5 } });
  assert.is(metaOnly.text, `{"seq":2,"ts":"${T0}","type":"b","data":1,"meta":{"max_age_s":5}}`);
  const nulls = await postEvent(d.url, { type: 'c', data: 1, max_age_s: null, meta: { max_age_s: null } });
  assert.is(nulls.text, `{"seq":3,"ts":"${T0}","type":"c","data":1,"meta":{"max_age_s":null}}`);
  const spelled = await postEvent(d.url, { type: 'd', data: 1, max_age_s: 2.50 });
  assert.is(spelled.json.meta.max_age_s, 2.5);
  clock.advance(10_000);
  assert.equal((await request(d.url, '/current?freshness=true')).json.freshness,
    { a: fresh(10, 20, false), b: fresh(10, 5, true), c: fresh(10, 600, false, 'rule'), d: fresh(10, 2.5, true) });
}));

// [name, body fields, detail]
const INVALID: Array<[string, Record<string, unknown>, string]> = [
  ['zero', { max_age_s: 0 }, 'max_age_s must be a positive number of seconds or null; got number 0.'],
  ['negative', { max_age_s: -30 }, 'max_age_s must be a positive number of seconds or null; got number -30.'],
  ['a string', { max_age_s: '180' }, 'max_age_s must be a positive number of seconds or null; got string "180".'],
  ['a boolean', { max_age_s: true }, 'max_age_s must be a positive number of seconds or null; got boolean true.'],
  ['an object', { max_age_s: {} }, 'max_age_s must be a positive number of seconds or null; got an object.'],
  ['meta.max_age_s a string', { meta: { max_age_s: 'soon' } }, 'meta.max_age_s must be a positive number of seconds or null; got string "soon".'],
  ['meta.max_age_s zero, even with a valid max_age_s', { meta: { max_age_s: 0 }, max_age_s: 10 }, 'meta.max_age_s must be a positive number of seconds or null; got number 0.'],
];

for (const [name, fields, detail] of INVALID) {
  test(`POST /event with max_age_s ${name}: 422 INVALID_MAX_AGE, nothing recorded`, () => withDaemon(undefined, async (d) => {
    const answer = await postEvent(d.url, { type: 'weather', data: 1, ...fields });
    assert.equal([answer.status, answer.json], [422, { detail, code: 'INVALID_MAX_AGE' }]);
    assert.is(d.daemon.store.view.size, 0);
    assert.is((await postEvent(d.url, { type: 'weather', data: 1 })).json.seq, 1, 'no seq consumed');
  }));
}

test('POST /event: a number beyond a double (1e400) is refused, not taken as infinite', () => withDaemon(undefined, async (d) => {
  const answer = await request(d.url, '/event', { method: 'POST', body: '{"type":"w","data":1,"max_age_s":1e400}', headers: { 'content-type': 'application/json' } });
  assert.equal([answer.status, answer.json], [422, { detail: 'max_age_s must be a positive number of seconds or null; got number 1e400.', code: 'INVALID_MAX_AGE' }]);
}));

test('POST /events: max_age_s per event; an invalid one fails the batch with its index and code', () => withDaemon(undefined, async (d, clock) => {
  const bad = await request(d.url, '/events', { method: 'POST', body: [{ type: 'a', data: 1, max_age_s: 10 }, { type: 'b', data: 1, max_age_s: -1 }] });
  assert.equal([bad.status, bad.json.code, bad.json.failures], [422, 'INVALID_BATCH',
    [{ index: 1, code: 'INVALID_MAX_AGE', detail: 'max_age_s must be a positive number of seconds or null; got number -1.' }]]);
  assert.is(d.daemon.store.view.size, 0);
  const good = await request(d.url, '/events', { method: 'POST', body: [{ type: 'a', data: 1, max_age_s: 10 }, { type: 'b', data: 1 }] });
  assert.equal(good.json, { recorded: 2, first_seq: 1, last_seq: 2, run_id: null });
  clock.advance(11_000);
  assert.equal((await request(d.url, '/current?freshness=true')).json.freshness, { a: fresh(11, 10, true), b: fresh(11, null, false) });
}));

test('without --max-age: a reading with max_age_s is recorded stale (meridian.stale) and fresh again with the next reading', () => withDaemon(undefined, async (d, clock) => {
  await postEvent(d.url, { type: 'power', data: 1, max_age_s: 10 });
  clock.advance(10_001);
  const staleEvent = nextRecorded(d, 'meridian.stale');
  d.daemon.freshness.watch.check();
  assert.equal(JSON.parse((await staleEvent).reading.json).data, {
    type: 'power', age_s: 10.001, max_age_s: 10, max_age_from: 'reading', last_seq: 1, last_ts: T0, last_run_id: null, stale_since: '2026-03-17T20:00:10.000Z',
  });
  const freshEvent = nextRecorded(d, 'meridian.fresh');
  await postEvent(d.url, { type: 'power', data: 2 });
  assert.equal(JSON.parse((await freshEvent).reading.json).data, {
    type: 'power', age_s: 0, max_age_s: null, max_age_from: null, last_seq: 3, last_ts: '2026-03-17T20:00:10.001Z', last_run_id: null, stale_since: '2026-03-17T20:00:10.000Z',
  });
  assert.equal(readLines(path.join(d.siteDir, SITE_FILE)).map((l) => (l as { type: string }).type), ['power', 'meridian.stale', 'power', 'meridian.fresh']);
}));

test('the reading\'s own limit survives a restart: from the snapshot, and replayed from the file without it', async () => {
  const clock = new ManualClock(T0);
  const opts = { clock, env: { TZ: 'UTC' }, flags: { maxAge: 'weather=180' }, freshnessIntervalMs: 0 };
  await afterComebacks(opts, async (first) => {
      await postEvent(first.url, { type: 'weather', data: 1, max_age_s: 30 });
  }, async (again, snapshot) => {
    clock.advance(20_000);
    const [age, stale] = snapshot === 'kept' ? [20, false] : [40, true];
    assert.equal((await request(again.url, '/current?freshness=true')).json.freshness.weather, fresh(age, 30, stale), `snapshot ${snapshot}`);
  });
});

test('telemetry current TYPE: exit 4 by the reading\'s own limit, exit 0 by the type\'s for the next reading', () => withDaemon('weather=180', async (d, clock) => {
  const at = ['--host', '127.0.0.1', '--port', String(d.port)];
  const own = (await postEvent(d.url, { type: 'weather', data: 1, max_age_s: 30 })).text;
  clock.advance(45_000);
  assert.equal(await cli(['current', 'weather', ...at]),
    { code: 4, stdout: `${own}\n`, stderr: `telemetry: "weather" is stale: 45s old, max age 30s (reading) (seq 1, ts ${T0})\n` });
  const next = (await postEvent(d.url, { type: 'weather', data: 2 })).text;
  clock.advance(45_000);
  assert.equal(await cli(['current', 'weather', ...at]), { code: 0, stdout: `${next}\n`, stderr: '' });
}));

test('the client: postEvent and postEvents take maxAgeS', () => withDaemon(undefined, async (d, clock) => {
  const client = new TelemetryClient({ host: '127.0.0.1', port: d.port });
  try {
    assert.equal((await client.postEvent('a', 1, { maxAgeS: 15, meta: { station: 'ws1' } })).meta, { station: 'ws1', max_age_s: 15 });
    assert.equal(await client.postEvents([{ type: 'b', data: 1, maxAgeS: 5 }]), { recorded: 1, first_seq: 2, last_seq: 2, run_id: null });
    clock.advance(6_000);
    const answer = await client.current();
    assert.equal(answer.freshness, { a: fresh(6, 15, false), b: fresh(6, 5, true) });
  } finally {
    client.close();
  }
}));

test.run();
