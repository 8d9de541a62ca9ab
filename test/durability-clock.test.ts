import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A clock that steps back (an NTP correction, a bad RTC at boot) must not change what a
// restart shows: the current view is what was recorded last, by seq in a target and by the
// timeline across the site and the runs, whatever the ts say and whatever the day files are named.

const LATE = '2026-03-17T13:00:00.000Z'; // site day 20260317 in UTC
const BACK = '2026-03-17T11:00:00.000Z'; // two hours back: site day 20260316

/** Daemons started in turn on one site directory with one injected clock, all closed at the end. */
async function withSite(fn: (start: (dir?: string) => Promise<TestDaemon>, dir: string, clock: ManualClock) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const clock = new ManualClock(LATE);
  const started: TestDaemon[] = [];
  const extra: string[] = [];
  const start = async (siteDir = dir) => {
    if (siteDir !== dir) extra.push(siteDir);
    const d = await startTestDaemon({ clock, siteDir, env: { TZ: 'UTC' } });
    started.push(d);
    return d;
  };
  try {
    await fn(start, dir, clock);
  } finally {
    for (const d of started) await d.close();
    for (const d of [dir, ...extra]) removeDir(d);
  }
}

async function currentText(d: TestDaemon, type: string): Promise<string> {
  return (await request(d.url, `/current/${type}`)).text;
}

test('the clock steps back across noon: a restart from the snapshot shows the readings recorded last', () => withSite(async (start, dir, clock) => {
  let d = await start();
  await postEvent(d.url, { type: 'weather', data: 'late' });
  clock.set(BACK);
  const back = await postEvent(d.url, { type: 'weather', data: 'back' });
  assert.is(back.json.seq, 2);
  assert.equal(fs.readdirSync(dir).filter((n) => n.startsWith('site_')).sort(), ['site_20260316.ndjson', 'site_20260317.ndjson']);
  await d.close();

  d = await start();
  assert.is(await currentText(d, 'weather'), back.text);
  assert.is((await postEvent(d.url, { type: 'weather', data: 'next' })).json.seq, 3);
}));

test('the clock steps back across noon: a restart without a snapshot replays by seq, not by file name', () => withSite(async (start, dir, clock) => {
  let d = await start();
  await postEvent(d.url, { type: 'weather', data: 'late' });
  const dome = await postEvent(d.url, { type: 'dome', data: 'open' });
  clock.set(BACK);
  const back = await postEvent(d.url, { type: 'weather', data: 'back' });
  await d.close();
  fs.rmSync(path.join(dir, '.meridian', 'snapshot.json'));

  d = await start();
  assert.is(await currentText(d, 'weather'), back.text);
  assert.is(await currentText(d, 'dome'), dome.text);
  assert.is((await postEvent(d.url, { type: 'weather', data: 'next' })).json.seq, 4);
}));

test('a crash after the clock stepped back: the snapshot marks the earlier day file, nothing written there is missed', () => withSite(async (start, dir, clock) => {
  const d = await start();
  await postEvent(d.url, { type: 'weather', data: 'late' });
  d.daemon.store.snapshot(); // a periodic snapshot while the later day is written
  clock.set(BACK);
  const back = await postEvent(d.url, { type: 'weather', data: 'back' });
  const dome = await postEvent(d.url, { type: 'dome', data: 'open' });
  assert.equal(d.logs.find((l) => l.includes('the clock went back')),
    '2026-03-17T11:00:00.000Z WARN the clock went back to the site day of site_20260316.ndjson; events go to that file');
  // what a kill -9 leaves: the files as they are now (the lock is the running daemon's)
  const copy = tempDir();
  fs.cpSync(dir, copy, { recursive: true, filter: (src) => path.basename(src) !== 'daemon.lock' });

  const after = await start(copy);
  assert.is(await currentText(after, 'weather'), back.text);
  assert.is(await currentText(after, 'dome'), dome.text);
  assert.is((await postEvent(after.url, { type: 'power', data: 230 })).json.seq, 4);
}));

test('a daemon started with its clock behind the newest day file, then killed: nothing written to the earlier day is missed', () => withSite(async (start, dir, clock) => {
  let d = await start();
  for (const data of [1, 2, 3]) await postEvent(d.url, { type: 'a', data });
  await d.close();
  clock.set(BACK); // a bad real-time clock at boot: the newest file is site_20260317, the clock says 20260316
  d = await start();
  const back = await postEvent(d.url, { type: 'b', data: 'back' });
  assert.is(back.json.seq, 4);
  assert.equal(d.logs.find((l) => l.includes('the clock went back')),
    '2026-03-17T11:00:00.000Z WARN the clock went back to the site day of site_20260316.ndjson; events go to that file');
  // what a kill -9 leaves before any periodic snapshot: the files as they are now
  const copy = tempDir();
  fs.cpSync(dir, copy, { recursive: true, filter: (src) => path.basename(src) !== 'daemon.lock' });

  const after = await start(copy);
  assert.is(await currentText(after, 'b'), back.text);
  assert.is((await postEvent(after.url, { type: 'c', data: 'after' })).json.seq, 5);
}));

test('a run started after the clock stepped back: without a snapshot its reading is newer than the site\'s later ts', () => withSite(async (start, dir, clock) => {
  let d = await start();
  await postEvent(d.url, { type: 'weather', data: 'site' });
  clock.set('2026-03-17T12:30:00.000Z'); // back half an hour, the same site day
  await request(d.url, '/run/start', { body: { run_id: 'r1' } });
  const inRun = await postEvent(d.url, { type: 'weather', data: 'run' });
  await request(d.url, '/run/stop', { method: 'POST' });
  await d.close();
  fs.rmSync(path.join(dir, '.meridian', 'snapshot.json'));

  d = await start();
  assert.is(await currentText(d, 'weather'), inRun.text);
}));

test.run();
