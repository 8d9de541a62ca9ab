import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { afterComebacks } from './helpers/restart.js';

// A meta key spelled with escapes is the key it decodes to, as to every JSON reader:
// `"max\u005fage_s"` is meta.max_age_s for validation, for the reading's own limit, and for a
// restart (from the snapshot or replayed from the file); `"run\u005fid"` is run_id. The
// daemon's clock is a ManualClock.

const T0 = '2026-03-17T20:00:00.000Z';
const JSON_TYPE = { 'content-type': 'application/json' };
const fresh = (age: number | null, max: number | null, stale: boolean) => ({ age_s: age, max_age_s: max, max_age_from: max === null ? null : 'reading', stale });

const post = (d: TestDaemon, body: string, to = '/event') => request(d.url, to, { method: 'POST', body, headers: JSON_TYPE });

function withDaemon(fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, freshnessIntervalMs: 0 }, (d) => fn(d, clock));
}

// [name, path, body, detail]: an escaped meta.max_age_s is validated like the plain one
const INVALID: Array<[string, string, string, string]> = [
  ['1e400, escaped _', '/event', String.raw`{"type":"rm2","data":1,"meta":{"max\u005fage_s":1e400}}`,
    'meta.max_age_s must be a positive number of seconds or null; got number 1e400.'],
  ['0, every letter escaped', '/event', String.raw`{"type":"rm2","data":1,"meta":{"\u006d\u0061\u0078\u005f\u0061\u0067\u0065\u005f\u0073":0}}`,
    'meta.max_age_s must be a positive number of seconds or null; got number 0.'],
  ['a string, with a valid max_age_s', '/event', String.raw`{"type":"rm2","data":"a\\b","max_age_s":5,"meta":{"max\u005Fage_s":"soon"}}`,
    'meta.max_age_s must be a positive number of seconds or null; got string "soon".'],
];

for (const [name, to, body, detail] of INVALID) {
  test(`POST ${to}: an escaped meta.max_age_s ${name} is 422 INVALID_MAX_AGE, nothing recorded`, () => withDaemon(async (d) => {
    const answer = await post(d, body, to);
    assert.equal([answer.status, answer.json], [422, { detail, code: 'INVALID_MAX_AGE' }]);
    assert.is(d.daemon.store.view.size, 0);
  }));
}

test('POST /events: an escaped meta.max_age_s fails the batch like the plain one', () => withDaemon(async (d) => {
  const answer = await post(d, String.raw`[{"type":"a","data":1},{"type":"b","data":1,"meta":{"max\u005fage_s":-1}}]`, '/events');
  assert.equal([answer.status, answer.json.code, answer.json.failures], [422, 'INVALID_BATCH',
    [{ index: 1, code: 'INVALID_MAX_AGE', detail: 'meta.max_age_s must be a positive number of seconds or null; got number -1.' }]]);
  assert.is(d.daemon.store.view.size, 0);
}));

test('an escaped meta.max_age_s is the reading\'s own limit: /current, /current/{type}, POST /events', () => withDaemon(async (d, clock) => {
  const one = await post(d, String.raw`{"type":"rm3","data":1,"meta":{"max\u005fage_s":0.5}}`);
  assert.is(one.text, String.raw`{"seq":1,"ts":"${T0}","type":"rm3","data":1,"meta":{"max\u005fage_s":0.5}}`, 'kept as spelled');
  const batch = await post(d, String.raw`[{"type":"rm4","data":1,"meta":{"max\u005fage_s":2}}]`, '/events');
  assert.is(batch.status, 200);
  const replaced = await post(d, String.raw`{"type":"rm5","data":1,"max_age_s":3,"meta":{"max\u005fage_s":0.5,"k":1}}`);
  assert.is(replaced.text, `{"seq":3,"ts":"${T0}","type":"rm5","data":1,"meta":{"max_age_s":3,"k":1}}`, 'the event\'s max_age_s takes its place');
  clock.advance(1_000);
  assert.equal((await request(d.url, '/current?freshness=true')).json.freshness,
    { rm3: fresh(1, 0.5, true), rm4: fresh(1, 2, false), rm5: fresh(1, 3, false) });
  const single = await request(d.url, '/current/rm3');
  assert.equal([single.headers['x-meridian-max-age'], single.headers['x-meridian-stale']], ['0.5', 'true']);
}));

test('an escaped meta.max_age_s survives a restart: from the snapshot, and replayed from the file without it', async () => {
  const clock = new ManualClock(T0);
  const opts = { clock, env: { TZ: 'UTC' }, freshnessIntervalMs: 0 };
  await afterComebacks(opts, async (first) => {
      assert.is((await post(first, String.raw`{"type":"rm3","data":"x\\y","meta":{"max\u005fage_s":30}}`)).status, 200);
  }, async (again, snapshot) => {
    clock.advance(20_000);
    const [age, stale] = snapshot === 'kept' ? [20, false] : [40, true];
    assert.equal((await request(again.url, '/current?freshness=true')).json.freshness.rm3, fresh(age, 30, stale), `snapshot ${snapshot}`);
  });
});

test('during a run, an escaped meta.run_id is replaced like the plain one', () => withDaemon(async (d) => {
  const run = await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'r1' } });
  assert.is(run.status, 200);
  const answer = await post(d, String.raw`{"type":"a","data":1,"meta":{"run\u005fid":"other","k":1}}`);
  assert.is(answer.text, `{"seq":1,"ts":"${T0}","type":"a","data":1,"meta":{"run_id":"r1","k":1}}`);
}));

test.run();
