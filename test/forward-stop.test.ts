import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadCursor } from '../daemon/forward/cursor-file.js';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { caughtUp, idRange, idsOf, startPeer, waitFor } from './helpers/forward.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A clean stop (SIGTERM) while a sink catches up: the batch in flight is acknowledged within
// the stop's grace and the cursor written whole with it, so the restart sends nothing twice.

test('SIGTERM with a batch in flight: the cursor holds it, the restart sends each event once', async () => {
  const peer = await startPeer({ answerDelayMs: 500 });
  const siteDir = tempDir();
  const config = path.join(siteDir, 'forward.toml');
  fs.writeFileSync(config, `[[sink]]\nname = "peer"\nurl = "${peer.url}"\nbatch_records = 50\nlinger_ms = 0\ntimeout_ms = 10000\n`);
  let d: ChildDaemon | undefined;
  try {
    d = await spawnDaemon({ siteDir, args: ['--config', config] });
    const body = Array.from({ length: 300 }, (_, i) => JSON.stringify({ type: 'a', data: i + 1 })).join('\n');
    const posted = await request(d.url, '/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
    assert.is(posted.status, 200, posted.text);
    // the second batch arrived at the peer and waits 500 ms for its answer: stop now
    await waitFor('the second batch', () => (peer.records.length >= 100 ? true : undefined));
    d.child.kill('SIGTERM');
    assert.is(await d.exited, 0);
    const cursor = loadCursor(path.join(siteDir, '.meridian', 'forward', 'peer.cursor.json'));
    assert.is(cursor instanceof Error ? cursor.message : cursor?.streams.site?.seq, 100, 'the cursor after the clean stop');
    assert.equal(fs.readdirSync(path.join(siteDir, '.meridian', 'forward')).filter((f) => f.includes('.tmp')), [], 'no temp file left');

    d = await spawnDaemon({ siteDir, args: ['--config', config] });
    await caughtUp(d.url, 'peer', 30_000);
    assert.equal(idsOf(peer.records), idRange('site', 1, 300), 'each event once, in order');
  } finally {
    if (d && d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill('SIGTERM');
      await d.exited;
    }
    await peer.down();
    removeDir(siteDir);
  }
});

test.run();
