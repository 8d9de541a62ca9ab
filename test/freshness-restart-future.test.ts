import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A reading whose ts runs ahead of the daemon's clock is judged by the time since it was
// received. That time survives a restart in the snapshot (each current reading's receipt on
// the wall clock); without it (the snapshot lost, a kill -9 before one was written) the age of
// such a reading cannot be judged, and it is reported stale (contract section 12, fail-safe),
// never fresh again after every restart. The daemons are real, in-process, on a ManualClock.

const T0 = '2026-03-17T20:00:00.000Z';
const FUTURE = '2027-01-01T00:00:00Z';

/** /current?freshness=true for `type`, its X-Meridian-Age and -Stale, and /status stale. */
async function judged(d: TestDaemon, type: string): Promise<unknown[]> {
  const freshness = (await request(d.url, '/current?freshness=true')).json.freshness[type];
  const one = await request(d.url, `/current/${type}`);
  return [freshness, one.headers['x-meridian-age'], one.headers['x-meridian-stale'], (await request(d.url, '/status')).json.stale];
}

// [name, what happens to the snapshot before the restart, the judgement 1 s after the restart]
const ROWS: Array<[string, 'kept' | 'deleted' | 'earlier format', unknown[]]> = [
  ['clean restart: held since its receipt (kept in the snapshot)', 'kept', [{ age_s: 5, max_age_s: 3, max_age_from: 'reading', stale: true }, '5', 'true', 1]],
  ['snapshot lost (as after a kill -9): its age cannot be judged, stale', 'deleted', [{ age_s: null, max_age_s: 3, max_age_from: 'reading', stale: true }, undefined, 'true', 1]],
  ['snapshot of an earlier version (no receipt times): stale', 'earlier format', [{ age_s: null, max_age_s: 3, max_age_from: 'reading', stale: true }, undefined, 'true', 1]],
];

for (const [name, snapshot, after] of ROWS) {
  test(`a stale reading with a future ts stays stale across a restart: ${name}`, async () => {
    const siteDir = tempDir();
    const clock = new ManualClock(T0);
    const opts = { siteDir, clock, env: { TZ: 'UTC' }, freshnessIntervalMs: 0 };
    let d: TestDaemon | undefined;
    try {
      d = await startTestDaemon(opts);
      assert.is((await postEvent(d.url, { type: 'fut', data: 1, ts: FUTURE, max_age_s: 3 })).status, 200);
      clock.advance(4_000);
      assert.equal(await judged(d, 'fut'), [{ age_s: 4, max_age_s: 3, max_age_from: 'reading', stale: true }, '4', 'true', 1]);
      await d.close();
      d = undefined;
      const file = path.join(siteDir, '.meridian', 'snapshot.json');
      if (snapshot === 'deleted') fs.rmSync(file);
      if (snapshot === 'earlier format') fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/,"received":\[[^\]]*\]/, ''));
      d = await startTestDaemon(opts);
      clock.advance(1_000);
      assert.equal(await judged(d, 'fut'), after);
    } finally {
      await d?.close();
      removeDir(siteDir);
    }
  });
}

test('the snapshot keeps each current reading\'s receipt time (wall ms), in the order of its readings', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(T0);
  const d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' }, freshnessIntervalMs: 0 });
  try {
    await postEvent(d.url, { type: 'a', data: 1, ts: FUTURE });
    clock.advance(1_500);
    await postEvent(d.url, { type: 'b', data: 1 });
  } finally {
    await d.close();
  }
  try {
    const head = fs.readFileSync(path.join(siteDir, '.meridian', 'snapshot.json'), 'utf8').split('\n')[0]!;
    assert.ok(head.endsWith(`"types":2,"received":[${Date.parse(T0)},${Date.parse(T0) + 1_500}],"current":[`), head);
  } finally {
    removeDir(siteDir);
  }
});

test('a recovered reading with a past ts is judged as before: by its ts', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(T0);
  const opts = { siteDir, clock, env: { TZ: 'UTC' }, flags: { maxAge: 'w=60' }, freshnessIntervalMs: 0 };
  let d: TestDaemon | undefined = await startTestDaemon(opts);
  try {
    await postEvent(d.url, { type: 'w', data: 1 });
    await d.close();
    fs.rmSync(path.join(siteDir, '.meridian', 'snapshot.json'));
    clock.advance(30_000);
    d = await startTestDaemon(opts);
    assert.equal(await judged(d, 'w'), [{ age_s: 30, max_age_s: 60, max_age_from: 'rule', stale: false }, '30', 'false', 0]);
  } finally {
    await d?.close();
    removeDir(siteDir);
  }
});

test.run();
