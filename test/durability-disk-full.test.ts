import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { FaultyFs } from './helpers/faulty-fs.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// A full disk (ENOSPC through the store's write seam): the daemon serves what it has, answers
// every write 503 DISK_FULL, shows it in GET /status, and records again once a write fits,
// without a restart (docs/storage.md "A full disk"). The real-filesystem counterpart, start-up
// included, is durability-disk-full-tmpfs.test.ts.

const AT = '2026-06-01T22:00:00.000Z';
const DAY = 'site_20260601.ndjson';
const env = { TZ: 'UTC' };

/** A FaultyFs whose every write fails with `code` while `full` is set. */
function disk(code = 'ENOSPC'): { faulty: FaultyFs; fill(): void; free(): void } {
  const faulty = new FaultyFs();
  let full = false;
  faulty.fault = (call) => (full && call === 'write' ? code : undefined);
  return { faulty, fill: () => { full = true; }, free: () => { full = false; } };
}

// [name, the request, exact detail of its 503, the file /status names]: every way in that writes
const WRITES: Array<[string, (d: TestDaemon) => Promise<Awaited<ReturnType<typeof request>>>, (dir: string) => string, (dir: string) => string]> = [
  ['POST /event', (d) => postEvent(d.url, { type: 'a', data: 2 }),
    (dir) => `The disk is full: could not write to ${path.join(dir, DAY)} (ENOSPC); the event was not recorded.`, (dir) => path.join(dir, DAY)],
  // the file named is the one whose write failed (finding 14): an ephemeral reading's side file, the held seqs' file
  ['POST /event, ephemeral', (d) => postEvent(d.url, { type: 'a', data: 2, store_permanently: false }),
    (dir) => `The disk is full: could not write to ${path.join(dir, '.meridian', 'ephemeral-site.ndjson')} (ENOSPC); the event was not recorded.`,
    (dir) => path.join(dir, '.meridian', 'ephemeral-site.ndjson')],
  ['POST /event, make_current false', (d) => postEvent(d.url, { type: 'a', data: 2, make_current: false }),
    (dir) => `The disk is full: could not write to ${path.join(dir, '.meridian', 'held-site.ndjson')} (ENOSPC); the event was not recorded.`,
    (dir) => path.join(dir, '.meridian', 'held-site.ndjson')],
  // a batch's journal is written ahead of its lines: on a full disk its write is the one that fails, and is named (hostile tester M)
  ['POST /events', (d) => request(d.url, '/events', { body: [{ type: 'a', data: 2 }, { type: 'b', data: 3 }] }),
    (dir) => `The disk is full: could not write to ${path.join(dir, '.meridian', 'batch.json')} (ENOSPC); the event was not recorded.`,
    (dir) => path.join(dir, '.meridian', 'batch.json')],
  ['POST /run/start', (d) => request(d.url, '/run/start', { body: { run_id: 'n1' } }),
    () => 'The disk is full: could not record the start of run n1 (ENOSPC); no run was started.', (dir) => path.join(dir, '.meridian')],
];

for (const [name, write, detail, file] of WRITES) {
  test(`full disk: ${name} is 503 DISK_FULL, reading goes on, /status says so, and it records again once there is space`, async () => {
    const dir = tempDir();
    const clock = new ManualClock(AT);
    const { faulty, fill, free } = disk();
    const d = await startTestDaemon({ siteDir: dir, clock, env, fs: faulty.fs });
    try {
      const first = await postEvent(d.url, { type: 'a', data: 1 });
      fill();
      clock.advance(1000);
      const refused = await write(d);
      assert.equal([refused.status, refused.json], [503, { detail: detail(dir), code: 'DISK_FULL' }]);
      assert.equal((await request(d.url, '/current?freshness=false')).json, { current: { a: first.json } });
      assert.equal((await request(d.url, '/history')).json.events, [first.json]);
      assert.equal((await request(d.url, '/status')).json.disk_full, { since: '2026-06-01T22:00:01.000Z', file: file(dir), code: 'ENOSPC' });
      assert.match((await request(d.url, '/metrics')).text, /^meridian_disk_full 1$/m);
      assert.is((await request(d.url, '/ready')).json.run_active, false);
      assert.ok(d.logs.some((l) => l.includes('ERROR the disk is full (ENOSPC) writing ')), d.logs.join('\n'));
      free();
      const again = await postEvent(d.url, { type: 'a', data: 5 });
      assert.equal([again.status, again.json.seq], [200, 2]);
      assert.is((await request(d.url, '/status')).json.disk_full, null);
      assert.match((await request(d.url, '/metrics')).text, /^meridian_disk_full 0$/m);
      assert.ok(d.logs.some((l) => l.endsWith('INFO the disk has space again (full since 2026-06-01T22:00:01.000Z): recording again')), d.logs.join('\n'));
      assert.equal(readLines(path.join(dir, DAY)), [first.json, again.json]);
    } finally {
      await d.close();
      removeDir(dir);
    }
  });
}

test('full disk: POST /run/stop is 503 DISK_FULL and the run stays active; it stops once there is space', async () => {
  const dir = tempDir();
  const { faulty, fill, free } = disk('EDQUOT');
  const d = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env, fs: faulty.fs });
  try {
    const run = await request(d.url, '/run/start', { body: { run_id: 'n1' } });
    fill();
    const refused = await request(d.url, '/run/stop', { method: 'POST' });
    assert.equal([refused.status, refused.json], [503, {
      detail: 'The disk is full: could not record the stop of run n1 (EDQUOT); it is still active, try again.', code: 'DISK_FULL' }]);
    assert.equal((await request(d.url, '/run')).json, run.json);
    assert.is((await request(d.url, '/status')).json.disk_full.code, 'EDQUOT');
    free();
    const stop = await request(d.url, '/run/stop', { method: 'POST' });
    assert.equal([stop.status, stop.json.run_id], [200, 'n1']);
    assert.is((await request(d.url, '/status')).json.disk_full, null);
  } finally {
    await d.close();
    removeDir(dir);
  }
});

test('full disk at start-up: the daemon starts, serves what it has, and /status says the disk is full from the start', async () => {
  const dir = tempDir();
  let d: TestDaemon | undefined = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env });
  const first = await postEvent(d.url, { type: 'a', data: 1 });
  await d.close();
  const { faulty, fill, free } = disk();
  fill();
  try {
    d = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env, fs: faulty.fs });
    assert.equal((await request(d.url, '/current?freshness=false')).json, { current: { a: first.json } });
    assert.equal((await request(d.url, '/status')).json.disk_full, { since: AT, file: path.join(dir, '.meridian', 'snapshot.json'), code: 'ENOSPC' });
    assert.equal((await postEvent(d.url, { type: 'a', data: 2 })).json.code, 'DISK_FULL');
    free();
    assert.is((await postEvent(d.url, { type: 'a', data: 3 })).json.seq, 2);
    assert.is((await request(d.url, '/status')).json.disk_full, null);
  } finally {
    await d?.close();
    removeDir(dir);
  }
});

test('another write error (EIO) is 503 STORAGE_UNAVAILABLE and does not say the disk is full', async () => {
  const dir = tempDir();
  const { faulty, fill } = disk('EIO');
  const d = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env, fs: faulty.fs });
  try {
    fill();
    const refused = await postEvent(d.url, { type: 'a', data: 1 });
    assert.equal([refused.status, refused.json], [503, {
      detail: `Could not write to ${path.join(dir, DAY)} (EIO); the event was not recorded.`, code: 'STORAGE_UNAVAILABLE' }]);
    assert.is((await request(d.url, '/status')).json.disk_full, null);
  } finally {
    await d.close();
    removeDir(dir);
  }
});

test.run();
