import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, type StartRunOptions } from '../client/index.js';
import { VERSION } from '../lib/version.js';
import type { Envelope, RunRecord, StoppedRunRecord } from '../lib/wire.js';
import { ManualClock } from './helpers/clock.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';

// Every TelemetryClient method against the real daemon, with exact answers: the clock is
// injected, so ts, started_at and stopped_at are known to the millisecond.

const T0 = '2026-03-17T20:05:48.955Z';

function withClient(fn: (client: TelemetryClient, d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' } }, (d) => fn(new TelemetryClient({ baseUrl: d.url, env: {} }), d, clock));
}

test('health() and ready() resolve to the exact answers', () => withClient(async (client) => {
  assert.equal(await client.health(), { ok: true });
  assert.equal(await client.ready(), { ready: true, run_active: false, version: VERSION });
}));

test('the lifecycle: startRun, getRun, postEvent, current, currentEvent, stopRun', () => withClient(async (client, d, clock) => {
  const record: RunRecord = {
    run_dir: path.join(d.siteDir, 'night-7'), run_id: 'night-7', meta: { observer: 'ana', run_id: 'night-7' }, started_at: T0,
  };
  assert.equal(await client.startRun({ runId: 'night-7', meta: { observer: 'ana' } }), record);
  assert.equal(await client.getRun(), record);
  assert.equal(await client.ready(), { ready: true, run_active: true, version: VERSION });

  clock.set('2026-03-17T20:05:49.001Z');
  const weather = await client.postEvent('weather', { temp_c: -3.5, wind: [1, 2] }, { meta: { station: 'ws1' } });
  const expected: Envelope = {
    seq: 1, ts: '2026-03-17T20:05:49.001Z', type: 'weather', data: { temp_c: -3.5, wind: [1, 2] }, meta: { station: 'ws1', run_id: 'night-7' },
  };
  assert.equal(weather, expected);
  assert.equal(Object.keys(weather), ['seq', 'ts', 'type', 'data', 'meta']);
  const dome = await client.postEvent('dome status', null);
  assert.equal(dome, { seq: 2, ts: '2026-03-17T20:05:49.001Z', type: 'dome status', data: null, meta: { run_id: 'night-7' } });

  const fresh = { age_s: 0, max_age_s: null, max_age_from: null, stale: false };
  assert.equal(await client.current(), { current: { 'dome status': dome, weather: expected }, freshness: { 'dome status': fresh, weather: fresh } });
  assert.equal(await client.current({ types: ['weather', 'nothing'] }), { current: { weather: expected }, freshness: { weather: fresh } });
  assert.equal(await client.current({ stale: true }), { current: {}, freshness: {} });
  assert.equal(await client.currentEvent('weather'), expected);
  assert.equal(await client.currentEvent('dome status'), dome);

  clock.set('2026-03-18T04:00:00.000Z');
  const stopped: StoppedRunRecord = { ...record, stopped_at: '2026-03-18T04:00:00.000Z' };
  assert.equal(await client.stopRun(), stopped);
  const later = { age_s: 28450.999, max_age_s: null, max_age_from: null, stale: false };
  assert.equal(await client.current(), { current: { 'dome status': dome, weather: expected }, freshness: { 'dome status': later, weather: later } },
    'the run\'s readings stay current after the stop');
  assert.equal(await client.ready(), { ready: true, run_active: false, version: VERSION });
}));

test('postEvent outside a run: meta as sent (default {}), makeCurrent false records but leaves the view', () => withClient(async (client) => {
  const first = await client.postEvent('weather', { t: 1 });
  assert.equal(first, { seq: 1, ts: T0, type: 'weather', data: { t: 1 }, meta: {} });
  assert.equal(await client.postEvent('weather', { t: 2 }, { makeCurrent: false, meta: { run_id: 'mine' } }),
    { seq: 2, ts: T0, type: 'weather', data: { t: 2 }, meta: { run_id: 'mine' } });
  assert.equal(await client.currentEvent('weather'), first);
  assert.equal(await client.postEvent('weather', 'three', { makeCurrent: true }), { seq: 3, ts: T0, type: 'weather', data: 'three', meta: {} });
  assert.is((await client.currentEvent('weather')).seq, 3);
}));

// [name, options, expected record without started_at], both given the site directory
const runs: Array<[string, (siteDir: string) => StartRunOptions, (siteDir: string) => Omit<RunRecord, 'started_at'>]> = [
  ['no options: the next number', () => ({}), (s) => ({ run_dir: path.join(s, '001'), run_id: '001', meta: { run_id: '001' } })],
  ['runId', () => ({ runId: 'flat-3' }), (s) => ({ run_dir: path.join(s, 'flat-3'), run_id: 'flat-3', meta: { run_id: 'flat-3' } })],
  ['meta.run_id', () => ({ meta: { run_id: 'm-1', focus: 2 } }), (s) => ({ run_dir: path.join(s, 'm-1'), run_id: 'm-1', meta: { run_id: 'm-1', focus: 2 } })],
  ['relative runDir', () => ({ runDir: 'nights/a', runId: 'a' }), (s) => ({ run_dir: path.join(s, 'nights', 'a'), run_id: 'a', meta: { run_id: 'a' } })],
  ['absolute runDir', (s) => ({ runDir: path.join(s, 'abs', 'b') }), (s) => ({ run_dir: path.join(s, 'abs', 'b'), run_id: '001', meta: { run_id: '001' } })],
];

for (const [name, options, expected] of runs) {
  test(`startRun(${name}) sends snake_case and resolves to the record`, () => withClient(async (client, d) => {
    assert.equal(await client.startRun(options(d.siteDir)), { ...expected(d.siteDir), started_at: T0 });
    assert.equal(await client.getRun(), { ...expected(d.siteDir), started_at: T0 });
  }));
}

const types: Array<[string, string]> = [
  ['space', 'dome status'],
  ['slash', 'mount/axis'],
  ['percent', '100%'],
  ['percent that looks encoded', '%2e%2e'],
  ['plus', 'a+b'],
  ['question mark and hash', 'why?#1'],
  ['unicode', 'Kuppel-Öffnung ☂'],
  ['one dot', '.'],
  ['two dots', '..'],
  ['three dots', '...'],
];

test('currentEvent() reaches every type: encoded in the path, dot segments through /current', () => withClient(async (client) => {
  const posted: Record<string, Envelope> = {};
  for (const [, type] of types) posted[type] = await client.postEvent(type, type.length);
  for (const [name, type] of types) {
    assert.equal(await client.currentEvent(type), posted[type], name);
  }
}));

test('shutdown() resolves {shutting_down: true} and the daemon stops', () => withClient(async (client, d) => {
  assert.equal(await client.shutdown(), { shutting_down: true });
  await d.daemon.closed;
  assert.is(d.daemon.server.listening, false);
}));

test.run();
