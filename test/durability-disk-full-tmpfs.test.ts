import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { follow } from './helpers/console-screen.js';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { fillDisk, mountTmpfs, removeDir } from './helpers/tmp.js';
import { Terminal } from './helpers/tmux.js';

// A really full file system: a 1 MiB tmpfs filled to the last byte (needs root to mount; on a
// machine where it cannot be mounted the test says so and checks nothing). The daemon starts on
// it (its lock held open without the pid), serves /current and /history, answers 503 DISK_FULL,
// keeps a second daemon out, shows it in the console's header (tmux), and records again once a
// file is removed, without a restart.

/** Post events until one is refused (at most 1000: the day file's last page may still hold some); returns the refusal and the seqs recorded. */
async function postUntilRefused(d: ChildDaemon, seqs: number[]): Promise<Awaited<ReturnType<typeof postEvent>>> {
  for (let i = 0; i < 1000; i++) {
    const answer = await postEvent(d.url, { type: 'weather', data: { i } });
    if (answer.status !== 200) return answer;
    seqs.push(answer.json.seq);
  }
  throw new Error('1000 events fitted on a full disk');
}

const mounted = process.platform === 'linux' ? mountTmpfs('1m') : { why: 'not Linux' };

if ('why' in mounted) {
  process.stderr.write(`durability-disk-full-tmpfs: not run: cannot mount a tmpfs (${mounted.why})\n`);
} else {
  test('a real full disk: start-up, reading, 503 DISK_FULL, the lock, and recording again without a restart', async () => {
    const site = path.join(mounted.dir, 'site');
    const filler = path.join(mounted.dir, 'filler');
    fs.mkdirSync(site);
    let d: ChildDaemon | undefined;
    try {
      d = await spawnDaemon({ siteDir: site, env: { TZ: 'UTC' } });
      const first = await postEvent(d.url, { type: 'weather', data: { i: -1 } });
      d.child.kill('SIGTERM');
      assert.is(await d.exited, 0);
      fillDisk(filler);

      d = await spawnDaemon({ siteDir: site, env: { TZ: 'UTC' } });
      const lockLine = `WARN the disk is full (ENOSPC): the lock ${path.join(site, '.meridian', 'daemon.lock')} is held open without the pid in it`;
      assert.ok(d.stderr().includes(lockLine), d.stderr());
      assert.equal((await request(d.url, '/current?freshness=false')).json, { current: { weather: first.json } });
      assert.equal((await request(d.url, '/history')).json.events, [first.json]);
      const status = (await request(d.url, '/status')).json;
      assert.equal([status.disk_full.file, status.disk_full.code], [path.join(site, '.meridian', 'snapshot.json'), 'ENOSPC']);

      const seqs: number[] = [first.json.seq];
      const refused = await postUntilRefused(d, seqs);
      const day = fs.readdirSync(site).find((n) => n.startsWith('site_'))!;
      assert.equal([refused.status, refused.json], [503, {
        detail: `The disk is full: could not write to ${path.join(site, day)} (ENOSPC); the event was not recorded.`, code: 'DISK_FULL' }]);

      // a second daemon finds the holder of the empty lock by its open file
      const second = await spawnDaemon({ siteDir: site, env: { TZ: 'UTC' } }).then(() => 'started', (error: Error) => error.message);
      assert.ok(second.includes(`site directory ${site} is in use by another telemetry daemon (pid ${d.child.pid})`), second);

      const since = (await request(d.url, '/status')).json.disk_full.since as string;
      const t = new Terminal();
      try {
        t.run(follow(d));
        // the header can say DISK FULL (from /ready) a moment before the view's one type is read
        const full = await t.waitFor('the header says the disk is full, the view read', (x) => x.split('\n')[1]!.includes('DISK FULL') && x.split('\n')[1]!.includes(' 1 type '));
        assert.is(full.split('\n')[1], `run site  DISK FULL since ${since.slice(11, 19)}Z: not recording  1 type  poll 300ms  sort type`);
        fs.rmSync(filler);
        const again = await postEvent(d.url, { type: 'weather', data: { i: 'again' } });
        assert.equal([again.status, again.json.seq], [200, seqs.at(-1)! + 1]);
        assert.is((await request(d.url, '/status')).json.disk_full, null);
        const ok = await t.waitFor('the header no longer says it', (x) => !x.split('\n')[1]!.includes('DISK FULL'));
        assert.is(ok.split('\n')[1], 'run site  1 type  poll 300ms  sort type');
        seqs.push(again.json.seq);
      } finally {
        t.kill();
      }
      d.child.kill('SIGTERM');
      assert.is(await d.exited, 0);
      const lines = fs.readFileSync(path.join(site, day), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).seq);
      assert.equal(lines, seqs);
    } finally {
      if (d && d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
      await d?.exited;
      execFileSync('umount', [mounted.dir]);
      removeDir(mounted.dir);
    }
  });
}

test.run();
