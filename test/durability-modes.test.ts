import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StorageFs } from '../daemon/storage/storage-fs.js';
import { spawnDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent } from './helpers/http.js';
import { readLines, removeDir } from './helpers/tmp.js';

// --fsync modes and the graceful stop.

type Env = { seq: number; type: string; data: unknown };

function siteLines(dir: string): Env[] {
  return fs.readdirSync(dir).filter((n) => n.startsWith('site_')).sort().flatMap((n) => readLines(path.join(dir, n)) as Env[]);
}

/**
 * A disk whose event-file syncs finish only once `lines` lines were written: requests meet
 * syncs in flight however fast the real disk is (on an idle machine each sync could finish
 * before the next request arrived, and nothing would be shared).
 */
function slowSyncs(lines: number): StorageFs {
  let written = 0;
  const held: (() => void)[] = [];
  const writeSync = ((fd: number, data: string | NodeJS.ArrayBufferView, ...rest: never[]) => {
    const n = (fs.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
    const text = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
    if (text.startsWith('{"seq":')) written += text.split('\n').length - 1; // event lines, not state files
    if (written >= lines) for (const go of held.splice(0)) go();
    return n;
  }) as typeof fs.writeSync;
  const fdatasync = ((fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
    const go = () => fs.fdatasync(fd, done);
    if (written >= lines) go(); else held.push(go);
  }) as typeof fs.fdatasync;
  return { ...fs, writeSync, fdatasync };
}

test('--fsync always: 64 concurrent posts are all synced, sharing fsyncs (group commit)', () => withTestDaemon({ flags: { fsync: 'always' }, fs: slowSyncs(64) }, async (d) => {
  const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => postEvent(d.url, { type: `t${i % 4}`, data: i })));
  assert.equal(answers.map((a) => a.status), answers.map(() => 200));
  assert.equal(answers.map((a) => a.json.seq).sort((a, b) => a - b), answers.map((_, i) => i + 1));
  // two syncs at a time, one more queued that covers every line written until it starts
  const rounds = d.daemon.store.syncRounds;
  assert.ok(rounds >= 1 && rounds <= 3, `64 requests shared ${rounds} fsync round(s)`);
  assert.equal(siteLines(d.siteDir).map((l) => l.seq), answers.map((_, i) => i + 1));
}));

test('--fsync off and batch never sync on the request path', async () => {
  for (const fsync of ['off', 'batch']) {
    await withTestDaemon({ flags: { fsync } }, async (d) => {
      for (let i = 0; i < 10; i++) assert.is((await postEvent(d.url, { type: 'w', data: i })).json.seq, i + 1);
      assert.is(d.daemon.store.syncRounds, 0, fsync);
    });
  }
});

test('--fsync batch syncs what was written within a second, off request', () => withTestDaemon({ flags: { fsync: 'batch' } }, async (d) => {
  const posted = Date.now();
  assert.is((await postEvent(d.url, { type: 'w', data: 1 })).json.seq, 1);
  assert.is(d.daemon.store.syncRounds, 0, 'not synced on the request path');
  const until = posted + 3000;
  while (d.daemon.store.syncRounds === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  assert.is(d.daemon.store.syncRounds, 1, 'one periodic sync round');
  assert.ok(Date.now() - posted <= 1500, `synced ${Date.now() - posted} ms after the post`);
}));

test('SIGTERM the moment the daemon says it is listening is a clean stop (exit 0, files closed)', async () => {
  for (let i = 0; i < 5; i++) {
    const d = await spawnDaemon();
    try {
      d.child.kill('SIGTERM');
      assert.is(await d.exited, 0, `attempt ${i + 1}: ${d.stderr()}`);
      assert.match(d.stderr(), /INFO SIGTERM received; stopping\n(.*\n)*.* INFO stopped\n$/);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      removeDir(d.siteDir);
    }
  }
});

test('SIGTERM finishes the requests in flight, syncs, snapshots and exits 0', async () => {
  const d = await spawnDaemon({ args: ['--fsync', 'always'] });
  try {
    let stopping = false;
    const results = await Promise.all(Array.from({ length: 48 }, (_, i) => postEvent(d.url, { type: 'burst', data: i })
      .then((a) => {
        if (!stopping) {
          stopping = true;
          d.child.kill('SIGTERM');
        }
        return a;
      }, () => undefined)));
    assert.is(await d.exited, 0);
    const acked = results.filter((a) => a !== undefined);
    assert.equal(acked.map((a) => a!.status), acked.map(() => 200), 'every answered request was a success');
    const lines = siteLines(d.siteDir);
    assert.equal(lines.map((l) => l.seq), lines.map((_, i) => i + 1));
    const onDisk = new Set(lines.map((l) => JSON.stringify(l)));
    for (const a of acked) assert.ok(onDisk.has(a!.text), `acknowledged ${a!.text} is on disk`);
    const snapshot = JSON.parse(fs.readFileSync(path.join(d.siteDir, '.meridian', 'snapshot.json'), 'utf8'));
    assert.is(snapshot.site.seq, lines.length);
    assert.match(d.stderr(), 'SIGTERM received; stopping');
    assert.match(d.stderr(), /INFO stopped\n$/);
  } finally {
    if (d.child.exitCode === null) d.child.kill('SIGKILL');
    removeDir(d.siteDir);
  }
});

test.run();
