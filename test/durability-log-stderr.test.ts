import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, freePort, MERIDIAN_BIN, spawnDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { fillDisk, removeDir, tempDir } from './helpers/tmp.js';

// The daemon's stderr closed under it (its reader gone: EPIPE): log lines are dropped and
// counted in /status, the daemon goes on recording and stops cleanly (exit 0).

test('stderr closed: log lines dropped and counted in /status, the daemon records on and stops with 0', async () => {
  const d = await spawnDaemon();
  try {
    d.child.stderr!.destroy();
    let seq = 0;
    for (let i = 1; i <= 3; i++) {
      // a run start and stop each log a line
      assert.is((await request(d.url, '/run/start', { body: { run_id: `r${i}` } })).status, 200);
      seq = (await postEvent(d.url, { type: 'weather', data: i })).json.seq;
      assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
    }
    assert.is(seq, 1, 'each run starts at seq 1');
    const status = (await request(d.url, '/status')).json;
    // the three runs' start and stop lines
    assert.equal({ ...status.log_dropped, since: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(status.log_dropped.since) }, { lines: 6, code: 'EPIPE', since: true });
    d.child.kill('SIGTERM');
    assert.is(await d.exited, 0);
  } finally {
    if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
    removeDir(d.siteDir);
  }
});

// stderr a file on a full tmpfs (needs root to mount; else the test says so and checks nothing)
test('stderr a file on a full disk from the start: the daemon starts, records, counts the lines (ENOSPC), stops with 0', async () => {
  const mnt = tempDir('meridian-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (error) {
    process.stderr.write(`durability-log-stderr: full-disk row not run: cannot mount a tmpfs (${String(error).trim()})\n`);
    removeDir(mnt);
    return;
  }
  const siteDir = tempDir();
  try {
    const fill = fs.openSync(path.join(mnt, 'filler'), 'w');
    for (const size of [65536, 4096, 1]) for (;;) { try { fs.writeSync(fill, Buffer.alloc(size, 0x78)); } catch { break; } }
    fs.closeSync(fill);
    const err = fs.openSync(path.join(mnt, 'stderr.log'), 'a');
    const port = await freePort();
    const child = spawn(process.execPath, [MERIDIAN_BIN, 'telemetry', 'run', '--host', '127.0.0.1', '--port', String(port), '--site-dir', siteDir],
      { env: cleanEnv(), stdio: ['ignore', 'ignore', err] });
    fs.closeSync(err);
    const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
    const url = `http://127.0.0.1:${port}`;
    await waitFor('the daemon to answer', async () => ((await request(url, '/ready').catch(() => undefined))?.status === 200 ? true : undefined));
    assert.is((await postEvent(url, { type: 'weather', data: 1 })).json.seq, 1);
    const dropped = (await request(url, '/status')).json.log_dropped;
    assert.equal([dropped.code, dropped.lines > 0], ['ENOSPC', true], JSON.stringify(dropped));
    assert.is(fs.statSync(path.join(mnt, 'stderr.log')).size, 0, 'nothing fitted');
    child.kill('SIGTERM');
    assert.is(await exited, 0);
  } finally {
    execFileSync('umount', [mnt]);
    removeDir(mnt);
    removeDir(siteDir);
  }
});

// stderr a file on a tmpfs that fills while a line is written (needs root to mount; else the test says so and checks nothing)
test('a log line torn by a full disk is ended before the next one: no two lines glued together once space is back', async () => {
  const mnt = tempDir('meridian-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (error) {
    process.stderr.write(`durability-log-stderr: torn-line row not run: cannot mount a tmpfs (${String(error).trim()})\n`);
    removeDir(mnt);
    return;
  }
  const siteDir = tempDir();
  const log = path.join(mnt, 'stderr.log');
  const err = fs.openSync(log, 'a');
  const port = await freePort();
  const child = spawn(process.execPath, [MERIDIAN_BIN, 'telemetry', 'run', '--host', '127.0.0.1', '--port', String(port), '--site-dir', siteDir, '--access-logs'],
    { env: cleanEnv(), stdio: ['ignore', 'ignore', err] });
  fs.closeSync(err);
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor('the daemon to answer', async () => ((await request(url, '/ready').catch(() => undefined))?.status === 200 ? true : undefined));
    if (fs.statSync(log).size % 4096 === 0) assert.is((await request(url, '/ready?page')).status, 200);
    fillDisk(path.join(mnt, 'filler'));
    // the log's last page has room for part of a line: a request whose access line is longer is torn there
    const room = 4096 - (fs.statSync(log).size % 4096);
    assert.is((await request(url, `/ready?${'x'.repeat(room + 10)}`)).status, 200);
    await waitFor('the torn line counted', async () => ((await request(url, '/status')).json.log_dropped ? true : undefined));
    assert.is(fs.readFileSync(log, 'utf8').endsWith('\n'), false, 'the line was torn');
    fs.rmSync(path.join(mnt, 'filler'));
    assert.is((await request(url, '/ready?after')).status, 200);
    await waitFor('the next line written', async () => (fs.readFileSync(log, 'utf8').includes('/ready?after') ? true : undefined));
    const lines = fs.readFileSync(log, 'utf8').split('\n');
    assert.is(lines.at(-1), '', 'the file ends with a whole line');
    const torn = lines.filter((l) => l.includes('/ready?xx'));
    assert.is(torn.length, 1);
    assert.ok(/^\S+Z INFO \S+ GET \/ready\?x+$/.test(torn[0]!), `the torn line stays alone on its line: ${torn[0]}`);
    assert.equal(lines.filter((l) => (l.match(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g) ?? []).length > 1), [], 'no two lines glued');
    assert.ok(lines.some((l) => /^\S+Z INFO \S+ GET \/ready\?after 200/.test(l)));
    child.kill('SIGTERM');
    assert.is(await exited, 0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    execFileSync('umount', [mnt]);
    removeDir(mnt);
    removeDir(siteDir);
  }
});

test.run();
