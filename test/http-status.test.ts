import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient } from '../client/index.js';
import { VERSION } from '../lib/version.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';

// GET /status (for `telemetry status` and `stop`): pid, start time, address, run, type count, suspended run.

const T0 = '2026-03-17T20:00:00.000Z';

test('GET /status: version, pid, start time, bound address, run id and the number of current types', async () => {
  const clock = new ManualClock(T0);
  await withTestDaemon({ clock, env: { TZ: 'UTC' } }, async (d) => {
    const status = (body: object) => ({ version: VERSION, pid: process.pid, started_at: T0, address: `127.0.0.1:${d.port}`, site_dir: d.siteDir, ...body,
      authenticated: false, suspended_run: null, disk_full: null, forward: [],
      rollups: { state: 'ok', since: null, reason: null, last_rebuild: null } });
    // stale, max_age and learned come right after types
    const counts = (permanent: number, ephemeral: number) => ({ stale: 0, max_age: {}, learned: {}, recorded: { permanent, ephemeral } });
    clock.advance(5000);
    const empty = await request(d.url, '/status');
    assert.is(empty.status, 200);
    assert.is(empty.headers['content-type'], 'application/json');
    assert.is(empty.text, JSON.stringify(status({ run_id: null, types: 0, ...counts(0, 0) })));

    const steps: Array<[string, () => Promise<unknown>, object]> = [
      ['two site types', async () => { await postEvent(d.url, { type: 'weather', data: 1 }); await postEvent(d.url, { type: 'dome', data: 2 }); }, { run_id: null, types: 2, ...counts(2, 0) }],
      ['a run starts: the site types still show', () => request(d.url, '/run/start', { method: 'POST', body: { run_id: '042' } }), { run_id: '042', types: 2, ...counts(2, 0) }],
      ['a run reading of a site type counts once', () => postEvent(d.url, { type: 'weather', data: 3 }), { run_id: '042', types: 2, ...counts(3, 0) }],
      ['a run-only type', () => postEvent(d.url, { type: 'camera', data: 4 }), { run_id: '042', types: 3, ...counts(4, 0) }],
      ['make_current false leaves the view', () => postEvent(d.url, { type: 'mount', data: 5, make_current: false }), { run_id: '042', types: 3, ...counts(5, 0) }],
      ['an ephemeral reading is counted apart', () => postEvent(d.url, { type: 'status', data: 6, store_permanently: false }), { run_id: '042', types: 4, ...counts(5, 1) }],
      ['the run stops: its readings stay current', () => request(d.url, '/run/stop', { method: 'POST' }), { run_id: null, types: 4, ...counts(5, 1) }],
    ];
    for (const [name, step, expected] of steps) {
      await step();
      assert.equal((await request(d.url, '/status')).json, status(expected), name);
    }
    assert.equal(await new TelemetryClient({ baseUrl: d.url, env: {} }).status(), status({ run_id: null, types: 4, ...counts(5, 1) }), 'client.status()');
  });
});

test('GET /status needs the token like every non-open path; other methods get 405', () => withTestDaemon({ flags: { token: 'tok' } }, async (d) => {
  const cases: Array<[string, string, Record<string, string>, number, string | undefined]> = [
    ['no token', 'GET', {}, 401, 'UNAUTHORIZED'],
    ['wrong token', 'GET', { authorization: 'Bearer nope' }, 403, 'FORBIDDEN'],
    ['right token', 'GET', { authorization: 'Bearer tok' }, 200, undefined],
    ['POST', 'POST', { authorization: 'Bearer tok' }, 405, 'METHOD_NOT_ALLOWED'],
  ];
  for (const [name, method, headers, status, code] of cases) {
    const answer = await request(d.url, '/status', { method, headers });
    assert.is(answer.status, status, name);
    assert.is(answer.json?.code, code, name);
  }
  assert.is((await request(d.url, '/status', { method: 'POST', headers: { authorization: 'Bearer tok' } })).headers.allow, 'GET');
}));

test.run();
