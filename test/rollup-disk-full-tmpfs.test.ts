import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The rollup tiers on a really full disk (a 64 KiB tmpfs on `.meridian`, needs root; where it
// cannot be mounted the test says so and checks nothing): a tier append the disk cut short is
// undone and appended again whole once there is room, so the tier file never holds a torn line
// and, after a clean stop and a start, the 1-minute tier answers every reading.

const READINGS = 2000;
const T0 = Date.parse('2026-11-20T12:00:30Z');

function mount(dir: string, size: string, remount = false): string | undefined {
  try {
    execFileSync('mount', remount ? ['-o', `remount,size=${size}`, dir] : ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
}

const root = tempDir('meridian-rollup-full-');
const site = path.join(root, 'site');
const dotDir = path.join(site, '.meridian');
fs.mkdirSync(dotDir, { recursive: true });
const why = process.platform === 'linux' ? mount(dotDir, '64k') : 'not Linux';

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
      assert.is(mount(dotDir, '4m', true), undefined);
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
      removeDir(root);
    }
  });
  test.run();
}
