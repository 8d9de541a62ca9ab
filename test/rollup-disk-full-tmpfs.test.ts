import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { cli } from './helpers/cli.js';
import { request } from './helpers/http.js';
import { mountTmpfsAt, removeDir, tempDir } from './helpers/tmp.js';

// The rollup tiers on a really full disk (a 64 KiB tmpfs on `.meridian`, needs root; where it
// cannot be mounted the test says so and checks nothing): a tier append the disk cut short is
// undone and appended again whole once there is room, so the tier file never holds a torn line
// and, after a clean stop and a start, the 1-minute tier answers every reading. A rebuild on a
// full disk is answered 503 DISK_FULL in one line (no stack trace in the log), removes its
// partial `rollups.rebuild/` and leaves the old tiers answering as before.

const READINGS = 2000;
const T0 = Date.parse('2026-11-20T12:00:30Z');

const root = tempDir('meridian-rollup-full-');
const site = path.join(root, 'site');
const dotDir = path.join(site, '.meridian');
fs.mkdirSync(dotDir, { recursive: true });
const why = process.platform === 'linux' ? mountTmpfsAt(dotDir, '64k') : 'not Linux';

if (why !== undefined) {
  process.stderr.write(`rollup-disk-full-tmpfs: not run: cannot mount a tmpfs (${why})\n`);
  removeDir(root);
} else {
  test('a tier append cut short by a full disk is appended again whole: no torn line, every reading in the 1m tier', async () => {
    let d: ChildDaemon | undefined;
    try {
      d = await spawnDaemon({ siteDir: site, env: { TZ: 'UTC' } });
      for (let b = 0; b < READINGS; b += 500) {
        const lines = Array.from({ length: 500 }, (_, i) =>
          JSON.stringify({ type: 'w', ts: new Date(T0 + (b + i) * 60_000).toISOString(), data: { temp: b + i + 0.5 } }));
        assert.is((await request(d.url, '/events', { body: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
      }
      const closing = JSON.stringify({ type: 'other', ts: new Date(T0 + (READINGS + 100) * 60_000).toISOString(), data: { x: 1 } });
      assert.is((await request(d.url, '/events', { body: closing, headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
      const failed = 'ERROR the rollups could not be written (ENOSPC); they are kept in memory and written once it works again';
      await waitFor('the rollups say the disk is full', () => d!.stderr().includes(failed) || undefined, 20_000);
      assert.is(mountTmpfsAt(dotDir, '4m', true), undefined);
      d.child.kill('SIGTERM');
      assert.is(await d.exited, 0, d.stderr());

      const tier = fs.readFileSync(path.join(dotDir, 'rollups', '1m', 'w.ndjson'), 'utf8');
      assert.ok(tier.endsWith('\n'), 'the tier file ends with a whole line');
      const starts = tier.slice(0, -1).split('\n').map((line) => (JSON.parse(line) as { s: number }).s);
      // the last minute is the type's open bucket (in the checkpoint, not yet in the file)
      assert.equal(starts, Array.from({ length: READINGS - 1 }, (_, i) => T0 - 30_000 + i * 60_000));
      const checkpoint = JSON.parse(fs.readFileSync(path.join(dotDir, 'rollups', 'checkpoint.json'), 'utf8')) as { files: Record<string, number> };
      assert.is(checkpoint.files[path.join('1m', 'w.ndjson')], Buffer.byteLength(tier));

      d = await spawnDaemon({ siteDir: site, env: { TZ: 'UTC' } });
      const answer = await request(d.url, '/history?type=w&step=1m&from=2026-11-20T00:00:00Z&to=2026-11-22T00:00:00Z');
      const counts = (answer.json as { buckets: { fields: Record<string, { count: number } | null> }[] }).buckets
        .flatMap((x) => (x.fields['data.temp'] ? [x.fields['data.temp'].count] : []));
      assert.equal([counts.length, counts.reduce((a, n) => a + n, 0)], [READINGS, READINGS]);
    } finally {
      if (d && d.child.exitCode === null) {
        d.child.kill('SIGTERM');
        await d.exited;
      }
      execFileSync('umount', [dotDir]);
    }
  });
  test('a rebuild on a full disk: 503 DISK_FULL, one line, no partial directory, the old tiers still answer', async () => {
    const site2 = path.join(root, 'site2');
    const dot2 = path.join(site2, '.meridian');
    fs.mkdirSync(dot2, { recursive: true });
    assert.is(mountTmpfsAt(dot2, '1m'), undefined);
    let d: ChildDaemon | undefined;
    try {
      d = await spawnDaemon({ siteDir: site2, env: { TZ: 'UTC' } });
      const lines = Array.from({ length: 100 }, (_, i) => JSON.stringify({ type: 'w', ts: new Date(T0 + i * 60_000).toISOString(), data: { temp: i + 0.5 } }));
      assert.is((await request(d.url, '/events', { body: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
      const checkpoint = path.join(dot2, 'rollups', 'checkpoint.json');
      await waitFor('the tiers are written', () => (fs.existsSync(checkpoint) && fs.readFileSync(checkpoint, 'utf8').includes('"1m/w.ndjson"')) || undefined, 20_000);
      const query = '/history?type=w&step=1m&from=2026-11-20T00:00:00Z&to=2026-11-22T00:00:00Z';
      const before = (await request(d.url, query)).text;
      assert.is(((JSON.parse(before) as { buckets: unknown[] }).buckets).length, 100);
      fill(path.join(dot2, 'filler'));

      const detail = 'The disk is full: the rollups were not rebuilt (ENOSPC); the old tiers still answer and the partial rebuild was removed.';
      const answer = await request(d.url, '/rollups/rebuild', { method: 'POST' });
      assert.equal([answer.status, answer.text], [503, JSON.stringify({ detail, code: 'DISK_FULL' })]);
      const run = await cli(['rollup', 'rebuild', '--host', '127.0.0.1', '--port', String(d.port)]);
      assert.equal([run.code, run.stdout, run.stderr], [1, '', `telemetry: t${detail.slice(1, -1)} (DISK_FULL)\n`]);
      assert.is(fs.existsSync(path.join(dot2, 'rollups.rebuild')), false);
      assert.is(fs.existsSync(path.join(dot2, 'rollups.old')), false);
      assert.is(/\n\s+at /.test(d.stderr()), false, d.stderr());
      assert.ok(d.stderr().includes('ERROR POST /rollups/rebuild failed (ENOSPC); the old rollup tiers still answer\n'), d.stderr());
      const status = (await request(d.url, '/status')).json as { rollups: { state: string; since: string; reason: string } };
      assert.equal([status.rollups.state, status.rollups.reason], ['failed', 'rebuilding the rollups failed (ENOSPC: no space left on device, write)']);
      assert.is((await request(d.url, query)).text, before);
      // `telemetry status` says it in its rollups line
      const said = await cli(['status', '--host', '127.0.0.1', '--port', String(d.port)]);
      assert.is(said.stdout.split('\n')[1], `rollups failed since ${status.rollups.since}: rebuilding the rollups failed (ENOSPC: no space left on device, write)`);
    } finally {
      if (d && d.child.exitCode === null) {
        d.child.kill('SIGTERM');
        await d.exited;
      }
      execFileSync('umount', [dot2]);
      removeDir(root);
    }
  });

  test.run();
}

/** Fill the file system of `file` to its last block (appends until ENOSPC). */
function fill(file: string): void {
  const chunk = Buffer.alloc(4096, 0x61);
  for (let i = 0; i < 100_000; i++) {
    try {
      fs.appendFileSync(file, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
      throw error;
    }
  }
}
