import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { siteDayKey } from '../lib/day-key.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { FaultyFs } from './helpers/faulty-fs.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// Real write failures: the day file is a link to /dev/full, where every write fails with
// ENOSPC; and failures injected through the store's write seam, to show that a failed
// write changes nothing for the events written before it.

const AT = '2026-06-01T22:00:00.000Z';

test('a target that cannot be written gives 503 with a clear detail, then serves again', async () => {
  const clock = new ManualClock(AT);
  const dir = tempDir();
  const file = path.join(dir, `site_${siteDayKey(new Date(AT))}.ndjson`);
  fs.symlinkSync('/dev/full', file);
  await withTestDaemon({ clock, siteDir: dir }, async (d) => {
    const failed = await postEvent(d.url, { type: 'weather', data: { t: 1 } });
    assert.is(failed.status, 503);
    assert.is(failed.json.code, 'DISK_FULL');
    assert.is(failed.json.detail, `The disk is full: could not write to ${file} (ENOSPC); the event was not recorded.`);
    assert.equal((await request(d.url, '/current?freshness=false')).json, { current: {} });
    const again = await postEvent(d.url, { type: 'weather', data: { t: 2 } });
    assert.is(again.status, 503);
    assert.equal((await request(d.url, '/health')).json, { ok: true });

    fs.unlinkSync(file); // the disk has room again
    const ok = await postEvent(d.url, { type: 'weather', data: { t: 3 } });
    assert.is(ok.status, 200);
    assert.is(ok.json.seq, 1, 'the failed writes consumed no seq');
    assert.equal(readLines(file), [ok.json]);
    assert.equal((await request(d.url, '/current/weather')).json, ok.json);
  });
});

test('a run file that cannot be written gives 503; the run stays active and its seq unconsumed', async () => {
  const clock = new ManualClock(AT);
  // outside the site directory: inside it a run file may not be a link
  const runDir = tempDir();
  const file = path.join(runDir, 'telemetry.ndjson');
  fs.symlinkSync('/dev/full', file);
  await withTestDaemon({ clock }, async (d) => {
    const run = await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'r1', run_dir: runDir } });
    assert.is(run.status, 200);
    const failed = await postEvent(d.url, { type: 'camera', data: 2, make_current: false });
    assert.is(failed.status, 503);
    assert.is(failed.json.detail, `The disk is full: could not write to ${file} (ENOSPC); the event was not recorded.`);
    assert.equal((await request(d.url, '/run')).json, run.json);
    fs.unlinkSync(file);
    const ok = await postEvent(d.url, { type: 'camera', data: 3 });
    assert.is(ok.json.seq, 1);
    assert.equal(ok.json.meta, { run_id: 'r1' });
    assert.equal(readLines(file), [ok.json]);
    assert.equal((await request(d.url, '/current?freshness=false')).json, { current: { camera: ok.json } });
  }).finally(() => removeDir(runDir));
});

test('--fsync always: a write failing for lack of space leaves the answers of events written before it alone', async () => {
  const faulty = new FaultyFs();
  const name = `site_${siteDayKey(new Date(AT))}.ndjson`;
  await withTestDaemon({ clock: new ManualClock(AT), fs: faulty.fs, flags: { fsync: 'always' } }, async (d) => {
    // three small events, each written in its own turn, their syncs held: two run, one is queued
    faulty.holdSyncs();
    const small: Promise<Awaited<ReturnType<typeof postEvent>>>[] = [];
    for (let i = 1; i <= 3; i++) {
      small.push(postEvent(d.url, { type: 'small', data: i }));
      await faulty.until(() => faulty.count(`write ${name}`) === i);
    }
    faulty.fault = (call, file) => (call === 'write' && file === name ? 'ENOSPC' : undefined);
    const big = await postEvent(d.url, { type: 'big', data: 'x'.repeat(4096) });
    assert.is(big.status, 503);
    assert.is(big.json.detail, `The disk is full: could not write to ${path.join(d.siteDir, name)} (ENOSPC); the event was not recorded.`);
    faulty.fault = undefined;
    faulty.releaseSyncs();
    const answers = await Promise.all(small);
    assert.equal(answers.map((a) => [a.status, a.json.seq]), [[200, 1], [200, 2], [200, 3]]);
    assert.equal(readLines(path.join(d.siteDir, name)), answers.map((a) => a.json));
    assert.is((await postEvent(d.url, { type: 'small', data: 4 })).json.seq, 4);
  });
});

test('--fsync batch: after a failed write the events acknowledged before it are synced before the file is closed', async () => {
  const faulty = new FaultyFs();
  const name = `site_${siteDayKey(new Date(AT))}.ndjson`;
  await withTestDaemon({ clock: new ManualClock(AT), fs: faulty.fs, flags: { fsync: 'batch' } }, async (d) => {
    assert.is((await postEvent(d.url, { type: 'small', data: 1 })).status, 200);
    assert.is((await postEvent(d.url, { type: 'small', data: 2 })).status, 200);
    faulty.fault = (call, file) => (call === 'write' && file === name ? 'ENOSPC' : undefined);
    const from = faulty.calls.length;
    assert.is((await postEvent(d.url, { type: 'big', data: 'x'.repeat(4096) })).status, 503);
    faulty.fault = undefined;
    assert.equal(faulty.calls.slice(from).filter((c) => c.endsWith(` ${name}`)),
      [`write-failed ${name}`, `fdatasyncSync ${name}`, `close ${name}`]);
    const next = await postEvent(d.url, { type: 'small', data: 3 });
    assert.is(next.json.seq, 3);
    assert.equal(readLines(path.join(d.siteDir, name)).map((l) => (l as { data: unknown }).data), [1, 2, 3]);
    await d.close();
    assert.equal(d.logs.filter((l) => /fsync.*failed/.test(l)), [], 'no sync failed');
  });
});

test.run();
