import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon, spawnDaemon } from './helpers/daemon.js';
import { postEvent } from './helpers/http.js';
import { withRestarts } from './helpers/restart.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// One daemon per site directory (contract section 4): .meridian/daemon.lock names the holder;
// a second daemon refuses to start and names that pid; a lock left by a dead process is taken over.

const lockFile = (dir: string) => path.join(dir, '.meridian', 'daemon.lock');

test('a second daemon on the same site directory refuses to start and names the pid that holds it', async () => {
  const first = await spawnDaemon();
  try {
    const second = await spawnDaemon({ siteDir: first.siteDir }).then(() => 'started', (error: Error) => error.message);
    assert.match(second, /^daemon exited \(1\) before listening:\n/);
    const lines = second.split('\n').filter((l) => l !== '').slice(1);
    assert.is(lines.length, 1, second);
    assert.match(lines[0]!, new RegExp(`^\\S+Z ERROR site directory ${first.siteDir} is in use by another telemetry daemon ` +
      `\\(pid ${first.child.pid}\\); stop it first or use another --site-dir$`));
    assert.is((await postEvent(first.url, { type: 'weather', data: 1 })).json.seq, 1, 'the first one is untouched');
    assert.is(JSON.parse(fs.readFileSync(lockFile(first.siteDir), 'utf8')).pid, first.child.pid);
    first.child.kill('SIGTERM');
    assert.is(await first.exited, 0);
    assert.is(fs.existsSync(lockFile(first.siteDir)), false, 'a clean stop removes the lock');
  } finally {
    if (first.child.exitCode === null) first.child.kill('SIGKILL');
    removeDir(first.siteDir);
  }
});

test('a copy of a site directory taken while its daemon runs starts: the copied lock holds the other directory', async () => {
  const first = await spawnDaemon();
  const copy = tempDir();
  let second: Awaited<ReturnType<typeof spawnDaemon>> | undefined;
  try {
    assert.is((await postEvent(first.url, { type: 'weather', data: 1 })).json.seq, 1);
    fs.cpSync(first.siteDir, copy, { recursive: true, preserveTimestamps: true });
    second = await spawnDaemon({ siteDir: copy });
    const warned = second.stderr().split('\n').filter((l) => l.includes('took over the lock')).map((l) => l.replace(/^\S+Z /, ''));
    assert.equal(warned, [`WARN took over the lock ${lockFile(copy)}: it was copied with the site directory (pid ${first.child.pid} holds the directory it was copied from)`]);
    assert.is((await postEvent(second.url, { type: 'weather', data: 2 })).json.seq, 2, 'the copy records on');
    assert.is(JSON.parse(fs.readFileSync(lockFile(copy), 'utf8')).pid, second.child.pid);
    assert.is(JSON.parse(fs.readFileSync(lockFile(first.siteDir), 'utf8')).pid, first.child.pid, 'the original keeps its lock');
    // and the copy's daemon keeps a second one on the copy out, as the original does
    const third = await spawnDaemon({ siteDir: copy }).then(() => 'started', (error: Error) => error.message);
    assert.match(third, `is in use by another telemetry daemon (pid ${second.child.pid})`);
  } finally {
    for (const d of [first, second]) {
      if (d && d.child.exitCode === null) {
        d.child.kill('SIGTERM');
        await d.exited;
      }
    }
    removeDir(first.siteDir);
    removeDir(copy);
  }
});

test('two daemons in one process on the same site directory: the second refuses', async () => {
  const first = await startTestDaemon();
  try {
    const second = await startTestDaemon({ siteDir: first.siteDir }).then(() => 'started', (error: Error) => error.message);
    assert.is(second, `site directory ${first.siteDir} is in use by another telemetry daemon (pid ${process.pid}); stop it first or use another --site-dir`);
  } finally {
    await first.close();
    removeDir(first.siteDir);
  }
});

test('after kill -9 the lock is stale: the next daemon takes it over and says so', () => withRestarts(async (site) => {
  const first = await site.start();
  assert.is((await postEvent(first.url, { type: 'weather', data: 1 })).json.seq, 1);
  await site.kill9();
  const next = await site.start();
  assert.match(next.stderr(), `WARN took over the lock ${lockFile(site.dir)}: pid ${first.child.pid} that held it is no longer running\n`);
  assert.is((await postEvent(next.url, { type: 'weather', data: 2 })).json.seq, 2);
  assert.is(JSON.parse(fs.readFileSync(lockFile(site.dir), 'utf8')).pid, next.child.pid);
}));

const STALE: Array<[string, string, string]> = [
  // [name, lock file content, how the warning explains it]
  ['a live pid that belongs to another process start (reused)', JSON.stringify({ pid: process.pid, boot: null, started: '1' }), `pid ${process.pid} that held it is no longer running`],
  ['a live pid from an earlier boot', JSON.stringify({ pid: process.pid, boot: 'an-earlier-boot', started: null }), `pid ${process.pid} that held it is no longer running`],
  ['an empty lock (cut short by a power cut)', '', 'it was empty or unreadable'],
  ['garbage', '\u0000\u0001 not json', 'it was empty or unreadable'],
];

for (const [name, content, why] of STALE) {
  test(`a stale lock is taken over: ${name}`, async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, '.meridian'));
    fs.writeFileSync(lockFile(dir), content);
    const d = await startTestDaemon({ siteDir: dir });
    try {
      assert.ok(d.logs.some((l) => l.endsWith(`WARN took over the lock ${lockFile(dir)}: ${why}`)), d.logs.join('\n'));
      assert.is(JSON.parse(fs.readFileSync(lockFile(dir), 'utf8')).pid, process.pid);
      await d.close();
      assert.is(fs.existsSync(lockFile(dir)), false);
    } finally {
      await d.close();
      removeDir(dir);
    }
  });
}

test.run();
