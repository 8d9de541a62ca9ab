import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { freePort, spawnDaemon } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The daemon's log: --log-format json for shippers, and the log file reopened on SIGHUP
// (logrotate's `create` + `postrotate kill -HUP`), with the real CLI.

/** Poll `ok` until it holds, failing with `what` after a deadline. */
async function until(what: string, ok: () => boolean, deadlineMs = 10_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
const messages = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { time: string; level: string; msg: string });

test('--log-format json: one object per line on stderr, {time, level, msg}', async () => {
  const d = await spawnDaemon({ args: ['--log-format', 'json'] });
  try {
    const lines = messages(d.stderr());
    assert.ok(lines.length >= 2);
    for (const line of lines) {
      assert.equal(Object.keys(line), ['time', 'level', 'msg']);
      assert.match(line.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    assert.equal(lines.at(-1)!.level, 'info');
    assert.match(lines.at(-1)!.msg, /^listening on http:\/\/127\.0\.0\.1:\d+ /);
  } finally {
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('run --detach --log-file: SIGHUP after a rotation reopens the file; later lines go to the new one', async () => {
  const dir = tempDir();
  const log = path.join(dir, 'logs', 'meridian.log');
  const port = String(await freePort());
  const address = ['--host', '127.0.0.1', '--port', port];
  try {
    const started = await cli(['run', '--detach', '--site-dir', path.join(dir, 'site'), '--log-file', log, '--log-format', 'json', ...address]);
    assert.is(started.code, 0, started.stderr);
    const pid = Number(/pid (\d+)/.exec(started.stdout)![1]);
    assert.match(messages(read(log)).at(-1)!.msg, /^listening on /);

    fs.renameSync(log, `${log}.1`); // what logrotate does
    process.kill(pid, 'SIGHUP');
    await until('the reopened log', () => read(log).includes('log file reopened'));
    assert.equal(messages(read(log)).map((l) => [l.level, l.msg]), [['info', `log file reopened (SIGHUP): ${log}`]]);

    assert.is((await cli(['stop', ...address])).code, 0);
    assert.equal(messages(read(log)).at(-1)!.msg, 'stopped');
    const rotated = messages(read(`${log}.1`)).map((l) => l.msg);
    assert.ok(rotated.some((m) => m.startsWith('listening on ')));
    assert.not.ok(rotated.includes('stopped'), 'nothing after the rotation went to the old file');
  } finally {
    removeDir(dir);
  }
});

test.run();
