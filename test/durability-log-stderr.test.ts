import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';

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

test.run();
