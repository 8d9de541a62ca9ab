import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, idsOf, QUICK, sinksOf, startPeer } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The site directory moved or copied while the daemon is stopped (issue 23): the runs stay in
// /history and the run goes on at its new place, forwarded whole; the state files under
// `.meridian/` keep the paths inside the site directory relative to it, and read the absolute
// ones of earlier versions at their place now; two daemons on two copies write only their own files.
// And `.meridian/active-run.json` lost alone while a run is active: the run is closed, as when
// all of `.meridian/` is lost, and its readings stay current.

const NOW = '2026-03-17T20:00:00.000Z';
const STATE = ['timeline.ndjson', 'runs.json', 'active-run.json', 'snapshot.json'];

/** Make the state files look as an earlier version wrote them: every recorded path absolute under `siteDir`. */
function asEarlierVersion(siteDir: string, dropSnapshot: boolean): void {
  const dir = path.join(siteDir, '.meridian');
  const abs = (p: string) => (path.isAbsolute(p) ? p : path.join(siteDir, p));
  const timeline = path.join(dir, 'timeline.ndjson');
  fs.writeFileSync(timeline, fs.readFileSync(timeline, 'utf8').split('\n').filter((l) => l !== '')
    .map((l) => { const o = JSON.parse(l); return `${JSON.stringify({ ...o, file: abs(o.file) })}\n`; }).join(''));
  const runs = JSON.parse(fs.readFileSync(path.join(dir, 'runs.json'), 'utf8'));
  runs.runs = runs.runs.map((r: any) => ({ ...r, run_dir: abs(r.run_dir) }));
  fs.writeFileSync(path.join(dir, 'runs.json'), JSON.stringify(runs));
  const active = JSON.parse(fs.readFileSync(path.join(dir, 'active-run.json'), 'utf8'));
  active.record.run_dir = abs(active.record.run_dir);
  active.record_json = active.record_json.replace(/"run_dir":"[^"]*"/, `"run_dir":${JSON.stringify(active.record.run_dir)}`);
  fs.writeFileSync(path.join(dir, 'active-run.json'), JSON.stringify(active));
  const snapshot = path.join(dir, 'snapshot.json');
  if (dropSnapshot) fs.rmSync(snapshot);
  else fs.writeFileSync(snapshot, fs.readFileSync(snapshot, 'utf8').replace(/"file":"([^"]*)"/g, (_, f) => `"file":${JSON.stringify(abs(f))}`));
}

/** Every path the state files hold (timeline files, run dirs, the active run's, the snapshot marks'), sorted. */
function recordedPaths(siteDir: string): string[] {
  const dir = path.join(siteDir, '.meridian');
  const text = STATE.map((name) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), 'utf8') : '')).join('\n');
  return [...text.matchAll(/"(?:file|run_dir)":"([^"]*)"/g)].map((m) => m[1]!).sort();
}

// [name, how the records were written, the snapshot dropped too, copy (cp -a) rather than move]
const ROWS: [string, 'this version' | 'earlier version', boolean, boolean][] = [
  ['moved, records of this version', 'this version', false, false],
  ['moved, records of an earlier version (absolute)', 'earlier version', false, false],
  ['moved, absolute records and no snapshot', 'earlier version', true, false],
  ['copied, records of this version', 'this version', false, true],
  ['copied, records of an earlier version (absolute)', 'earlier version', false, true],
];

for (const [name, records, dropSnapshot, copy] of ROWS) {
  test(`site directory ${name}: /history, the run and a sink find everything at the new place`, async () => {
    const parent = tempDir();
    const siteDir = path.join(parent, 'site');
    const moved = path.join(parent, copy ? 'copy' : 'site2');
    const clock = new ManualClock(NOW);
    const post = async (url: string, type: string) => {
      clock.advance(1000);
      assert.is((await postEvent(url, { type, data: 1 })).status, 200);
    };
    const peer = await startPeer();
    await peer.down(); // nothing delivered before the move: the sink's cursor still points into the files
    const forward = sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`);
    let d = await startTestDaemon({ siteDir, clock, forward });
    let before: string;
    try {
      await post(d.url, 'a');
      await request(d.url, '/run/start', { body: { run_id: 'r1' } });
      await post(d.url, 'cam');
      await request(d.url, '/run/stop', { method: 'POST' });
      await post(d.url, 'a');
      await request(d.url, '/run/start', { body: { run_id: 'r2', run_dir: 'nights/r2' } });
      await post(d.url, 'cam');
      before = (await request(d.url, '/history')).text;
    } finally {
      await d.close();
    }
    if (records === 'earlier version') asEarlierVersion(siteDir, dropSnapshot);
    const original = fs.readFileSync(path.join(siteDir, 'nights', 'r2', 'telemetry.ndjson'), 'utf8');
    if (copy) execFileSync('cp', ['-a', siteDir, moved]);
    else fs.renameSync(siteDir, moved);
    await peer.up();
    d = await startTestDaemon({ siteDir: moved, clock, forward });
    try {
      assert.is((await request(d.url, '/history')).text, before);
      const run = (await request(d.url, '/run')).json;
      assert.is(run.run_dir, path.join(moved, 'nights', 'r2'));
      await post(d.url, 'cam');
      const status = await caughtUp(d.url, 'peer');
      assert.equal(idsOf(peer.records).sort(), ['r1:1', 'r2:1', 'r2:2', 'site:1', 'site:2']);
      assert.equal({ state: status.state, skipped: status.skipped }, { state: 'ok', skipped: [] });
      assert.equal((await request(d.url, '/history?run=r2')).json.events.map((e: any) => e.seq), [1, 2]);
      assert.equal(recordedPaths(moved).filter((p) => path.isAbsolute(p)), [], 'every recorded path is relative');
      if (copy) {
        // the copy's daemon wrote its own run file; the original's is as it was
        const mine = path.join(moved, 'nights', 'r2', 'telemetry.ndjson');
        const theirs = path.join(siteDir, 'nights', 'r2', 'telemetry.ndjson');
        assert.is(fs.readFileSync(theirs, 'utf8'), original);
        assert.is(fs.readFileSync(mine, 'utf8').split('\n').length, 3);
        // a daemon on the original at the same time: each writes only its own files
        const other = await startTestDaemon({ siteDir, clock });
        try {
          const copyBefore = fs.readFileSync(mine, 'utf8');
          await post(other.url, 'cam');
          assert.equal((await request(other.url, '/run')).json.run_dir, path.join(siteDir, 'nights', 'r2'));
          assert.equal([fs.readFileSync(theirs, 'utf8').startsWith(original), fs.readFileSync(theirs, 'utf8').split('\n').length], [true, 3]);
          assert.is(fs.readFileSync(mine, 'utf8'), copyBefore);
          assert.equal((await request(other.url, '/history?run=r2')).json.events.map((e: any) => e.seq), [1, 2]);
        } finally {
          await other.close();
        }
      }
    } finally {
      await d.close();
      await peer.down();
      removeDir(parent);
    }
  });
}

// [name, what is removed while the daemon is stopped with run r1 active]
// (a snapshot from before the run start put back: a crash before the next snapshot)
const LOST: [string, string[], boolean][] = [
  ['only active-run.json lost', ['.meridian/active-run.json'], false],
  ['only active-run.json lost after a crash', ['.meridian/active-run.json'], true],
  ['all of .meridian/ lost', ['.meridian'], false],
];

for (const [name, lost, crash] of LOST) {
  test(`${name} while a run is active: the run is closed, its readings stay in /current and /history`, async () => {
    const siteDir = tempDir();
    const clock = new ManualClock(NOW);
    let d = await startTestDaemon({ siteDir, clock });
    const post = async (type: string) => {
      clock.advance(1000);
      assert.is((await postEvent(d.url, { type, data: 1 })).status, 200);
    };
    let current: string;
    let history: string;
    try {
      await post('a');
      await d.daemon.store.snapshot();
      const snapshot = path.join(siteDir, '.meridian', 'snapshot.json');
      fs.copyFileSync(snapshot, `${snapshot}.before`);
      await request(d.url, '/run/start', { body: { run_id: 'r1' } });
      await post('cam');
      current = (await request(d.url, '/current')).text;
      history = (await request(d.url, '/history')).text;
    } finally {
      await d.close();
    }
    const snapshot = path.join(siteDir, '.meridian', 'snapshot.json');
    if (crash) fs.renameSync(`${snapshot}.before`, snapshot);
    for (const file of lost) fs.rmSync(path.join(siteDir, file), { recursive: true });
    d = await startTestDaemon({ siteDir, clock });
    try {
      assert.is((await request(d.url, '/current')).text, current);
      assert.is((await request(d.url, '/history')).text, history);
      assert.is((await request(d.url, '/run')).status, 404);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test('a run_dir outside the site directory stays absolute: after a move the run is found where it is', async () => {
  const parent = tempDir();
  const siteDir = path.join(parent, 'site');
  const outside = path.join(parent, 'usb', 'r1');
  const clock = new ManualClock(NOW);
  let d = await startTestDaemon({ siteDir, clock });
  let before: string;
  try {
    await postEvent(d.url, { type: 'a', data: 1 });
    await request(d.url, '/run/start', { body: { run_id: 'r1', run_dir: outside } });
    await postEvent(d.url, { type: 'cam', data: 1 });
    await request(d.url, '/run/stop', { method: 'POST' });
    before = (await request(d.url, '/history')).text;
  } finally {
    await d.close();
  }
  const moved = path.join(parent, 'site2');
  fs.renameSync(siteDir, moved);
  d = await startTestDaemon({ siteDir: moved, clock });
  try {
    assert.is((await request(d.url, '/history')).text, before);
    const runs = JSON.parse(fs.readFileSync(path.join(moved, '.meridian', 'runs.json'), 'utf8')).runs;
    assert.equal(runs.map((r: any) => r.run_dir), [outside]);
    assert.equal(recordedPaths(moved).filter((p) => path.isAbsolute(p)), [outside, path.join(outside, 'telemetry.ndjson'), path.join(outside, 'telemetry.ndjson')]);
  } finally {
    await d.close();
    removeDir(parent);
  }
});

test.run();
