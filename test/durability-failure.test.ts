import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { siteDayKey } from '../lib/day-key.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, tempDir } from './helpers/tmp.js';

// Real write failures: the day file is a link to /dev/full, where every write fails with ENOSPC.

const AT = '2026-06-01T22:00:00.000Z';

test('a target that cannot be written gives 503 with a clear detail, then serves again', async () => {
  const clock = new ManualClock(AT);
  const dir = tempDir();
  const file = path.join(dir, `site_${siteDayKey(new Date(AT))}.ndjson`);
  fs.symlinkSync('/dev/full', file);
  await withTestDaemon({ clock, siteDir: dir }, async (d) => {
    const failed = await postEvent(d.url, { type: 'weather', data: { t: 1 } });
    assert.is(failed.status, 503);
    assert.is(failed.json.code, 'STORAGE_UNAVAILABLE');
    assert.is(failed.json.detail, `Could not write to ${file} (ENOSPC); the event was not recorded.`);
    assert.equal((await request(d.url, '/current')).json, { current: {} });
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
  await withTestDaemon({ clock }, async (d) => {
    const runDir = path.join(d.siteDir, 'r1');
    const file = path.join(runDir, 'telemetry.ndjson');
    fs.mkdirSync(runDir);
    fs.symlinkSync('/dev/full', file);
    const run = await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'r1' } });
    assert.is(run.status, 200);
    const failed = await postEvent(d.url, { type: 'camera', data: 2, make_current: false });
    assert.is(failed.status, 503);
    assert.is(failed.json.detail, `Could not write to ${file} (ENOSPC); the event was not recorded.`);
    assert.equal((await request(d.url, '/run')).json, run.json);
    fs.unlinkSync(file);
    const ok = await postEvent(d.url, { type: 'camera', data: 3 });
    assert.is(ok.json.seq, 1);
    assert.equal(ok.json.meta, { run_id: 'r1' });
    assert.equal(readLines(file), [ok.json]);
    assert.equal((await request(d.url, '/current')).json, { current: { camera: ok.json } });
  });
});

test.run();
