import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, idsOf, QUICK, sinksOf, startPeer } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A run id started again with another run_dir, without pauses (hostile C finding 4): a sink
// receives both segments, each record id once, and says ok only when it has.

test('a run id used again in another run_dir: a sink gets both segments, every id once', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  try {
    const d = await startTestDaemon({ siteDir, forward: sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`) });
    try {
      for (const dir of ['a', 'b']) {
        await request(d.url, '/run/start', { body: { run_id: 'n1', run_dir: dir } });
        for (let i = 0; i < 3; i++) await postEvent(d.url, { type: 'cam', data: i });
        await request(d.url, '/run/stop', { method: 'POST' });
        for (let i = 0; i < 2; i++) await postEvent(d.url, { type: 'a', data: i });
      }
      const status = await caughtUp(d.url, 'peer');
      assert.equal(idsOf(peer.records).sort(), ['n1:1', 'n1:2', 'n1:3', 'n1:4', 'n1:5', 'n1:6', 'site:1', 'site:2', 'site:3', 'site:4']);
      assert.equal([status.state, status.lag_events], ['ok', 0]);
    } finally {
      await d.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test.run();
