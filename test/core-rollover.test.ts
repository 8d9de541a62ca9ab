import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The site day file turns at local noon while the daemon runs. The zone comes from TZ in
// the daemon's environment (resolveDaemonConfig), so each test names its own zone.

function withDaemon(tz: string, start: string, fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(start);
  return withTestDaemon({ clock, env: { TZ: tz } }, (d) => fn(d, clock));
}

/** The site files of a directory and the seqs in each. */
function siteSeqs(siteDir: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const name of fs.readdirSync(siteDir).filter((n) => n.startsWith('site_')).sort()) {
    const text = fs.readFileSync(path.join(siteDir, name), 'utf8');
    out[name] = text.split('\n').filter(Boolean).map((l) => JSON.parse(l).seq);
  }
  return out;
}

// [name, TZ, instant just before local noon (UTC), day before, day after]
const NOONS: [string, string, string, string, string][] = [
  ['Berlin in winter (UTC+1)', 'Europe/Berlin', '2026-03-17T10:59:59.999Z', 'site_20260316.ndjson', 'site_20260317.ndjson'],
  ['Berlin on the spring DST day (UTC+2 since 03:00)', 'Europe/Berlin', '2026-03-29T09:59:59.999Z', 'site_20260328.ndjson', 'site_20260329.ndjson'],
  ['Berlin on the autumn DST day (UTC+1 since 03:00)', 'Europe/Berlin', '2026-10-25T10:59:59.999Z', 'site_20261024.ndjson', 'site_20261025.ndjson'],
  ['New York on the spring DST day (UTC-4)', 'America/New_York', '2026-03-08T15:59:59.999Z', 'site_20260307.ndjson', 'site_20260308.ndjson'],
  ['New York on the autumn DST day (UTC-5)', 'America/New_York', '2026-11-01T16:59:59.999Z', 'site_20261031.ndjson', 'site_20261101.ndjson'],
  ['UTC', 'UTC', '2026-03-17T11:59:59.999Z', 'site_20260316.ndjson', 'site_20260317.ndjson'],
  ['an unknown TZ falls back to UTC', 'Mars/Olympus_Mons', '2026-03-17T11:59:59.999Z', 'site_20260316.ndjson', 'site_20260317.ndjson'],
];

for (const [name, tz, beforeNoon, dayBefore, dayAfter] of NOONS) {
  test(`noon rollover while running: ${name}`, () => withDaemon(tz, beforeNoon, async (d, clock) => {
    assert.is((await postEvent(d.url, { type: 'weather', data: 'a' })).json.seq, 1);
    assert.is((await postEvent(d.url, { type: 'weather', data: 'b' })).json.seq, 2);
    clock.advance(1); // exactly 12:00:00.000 local
    const atNoon = await postEvent(d.url, { type: 'weather', data: 'c' });
    assert.is(atNoon.json.seq, 3);
    assert.is(atNoon.json.ts, new Date(Date.parse(beforeNoon) + 1).toISOString());
    assert.is((await postEvent(d.url, { type: 'dome', data: 'd' })).json.seq, 4);
    assert.equal(siteSeqs(d.siteDir), { [dayBefore]: [1, 2], [dayAfter]: [3, 4] });
    assert.is((await request(d.url, '/current/weather')).text, atNoon.text);
  }));
}

test('a run spanning noon writes one run file; after the stop the site file is the new day\'s', () =>
  withDaemon('Europe/Berlin', '2026-03-17T10:00:00.000Z', async (d, clock) => {
    assert.is((await postEvent(d.url, { type: 'weather', data: 1 })).json.seq, 1);
    await request(d.url, '/run/start', { body: { run_id: 'n1' } });
    assert.is((await postEvent(d.url, { type: 'weather', data: 2 })).json.seq, 1);
    clock.set('2026-03-17T12:00:00.000Z');
    assert.is((await postEvent(d.url, { type: 'weather', data: 3 })).json.seq, 2);
    await request(d.url, '/run/stop', { method: 'POST' });
    assert.is((await postEvent(d.url, { type: 'weather', data: 4 })).json.seq, 2);
    assert.equal(siteSeqs(d.siteDir), { 'site_20260316.ndjson': [1], 'site_20260317.ndjson': [2] });
    assert.is(fs.readFileSync(path.join(d.siteDir, 'n1', 'telemetry.ndjson'), 'utf8').split('\n').length, 3);
  }));

test('the site seq continues across days and across a restart', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock('2026-03-17T10:59:59.999Z');
  try {
    let d = await startTestDaemon({ siteDir, clock, env: { TZ: 'Europe/Berlin' } });
    try {
      await postEvent(d.url, { type: 'weather', data: 1 });
      clock.set('2026-03-18T11:30:00.000Z');
      await postEvent(d.url, { type: 'weather', data: 2 });
    } finally {
      await d.close();
    }
    clock.set('2026-03-19T23:00:00.000Z'); // 00:00 CET on the 20th: still the site day of the 19th
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'Europe/Berlin' } });
    try {
      assert.is((await postEvent(d.url, { type: 'weather', data: 3 })).json.seq, 3);
      assert.equal((await request(d.url, '/current/weather')).json.data, 3);
    } finally {
      await d.close();
    }
    assert.equal(siteSeqs(siteDir), {
      'site_20260316.ndjson': [1], 'site_20260318.ndjson': [2], 'site_20260319.ndjson': [3],
    });
  } finally {
    removeDir(siteDir);
  }
});

test.run();
