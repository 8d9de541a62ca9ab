import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { cli } from './helpers/cli.js';
import { startTestDaemon } from './helpers/daemon.js';
import { idsOf, QUICK, sinkStatus, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A run file moved away or deleted (issue 23) is named, never silently dropped: in /history,
// a stream replay, /status, the log (once) and telemetry history; a sink says what it could
// not send. A run file retention deleted is no such loss.

const NOW = '2026-03-17T20:00:00.000Z';

test('a run file moved away: /history, /status, the log (once) and telemetry history name it missing; put back, it is served again', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  let d = await startTestDaemon({ siteDir, clock });
  const post = async (type: string) => {
    clock.advance(1000);
    assert.is((await postEvent(d.url, { type, data: 1 })).status, 200);
  };
  let site: string[];
  try {
    await post('a');
    await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    await post('cam');
    await post('cam');
    await request(d.url, '/run/stop', { method: 'POST' });
    await post('a');
    site = (await request(d.url, '/history?run=site')).json.events.map((e: any) => JSON.stringify(e));
  } finally {
    await d.close();
  }
  const file = path.join(siteDir, 'r1', 'telemetry.ndjson');
  const away = path.join(siteDir, 'away.ndjson');
  fs.renameSync(file, away);
  const reason = 'missing (ENOENT): the run file was moved away or deleted; its events are not served';
  d = await startTestDaemon({ siteDir, clock });
  try {
    const history = await request(d.url, '/history');
    assert.is(history.text, `{"events":[${site.join(',')}],"next_cursor":null,"damaged":${JSON.stringify([{ file, reason }])}}`);
    assert.equal((await request(d.url, '/history?run=r1')).json, { events: [], next_cursor: null, damaged: [{ file, reason }] });
    assert.equal((await request(d.url, '/status')).json.damaged, [{ file, reason }]);
    assert.equal(d.logs.filter((l) => l.includes(file)).map((l) => l.slice(25)), [`ERROR ${file} is ${reason}`]);
    const stream = new SseReader(d.url, '/stream?since=site:0');
    try {
      await stream.until('the live marker', () => stream.named('live').length === 1);
      assert.equal(stream.named('replay').map((f) => f.id), ['site:1', 'site:2']);
      assert.equal(stream.data('live'), [{ cursor: 'site:2', replayed: 2, damaged: [{ file, reason }] }]);
    } finally {
      stream.close();
    }
    const cliRun = await cli(['history', 'cam', '--json', '--host', '127.0.0.1', '--port', String(d.port)]);
    assert.equal(cliRun, { code: 1, stdout: '', stderr: `telemetry: missing: ${file}: (ENOENT): the run file was moved away or deleted; its events are not served\n` });
    fs.renameSync(away, file);
    const back = await request(d.url, '/history?run=r1');
    assert.equal([back.json.events.map((e: any) => e.seq), back.json.damaged], [[1, 2], undefined]);
    assert.is((await request(d.url, '/status')).json.damaged, undefined);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('a run file moved away before a sink delivered it: the sink says what it could not send (skipped), never ok with lag 0', async () => {
  const peer = await startPeer();
  await peer.down();
  const siteDir = tempDir();
  const forward = sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`);
  let d = await startTestDaemon({ siteDir, forward });
  try {
    await postEvent(d.url, { type: 'a', data: 1 });
    await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    await postEvent(d.url, { type: 'cam', data: 1 });
    await request(d.url, '/run/stop', { method: 'POST' });
    await postEvent(d.url, { type: 'a', data: 2 });
  } finally {
    await d.close();
  }
  const file = path.join(siteDir, 'r1', 'telemetry.ndjson');
  fs.renameSync(file, path.join(siteDir, 'away.ndjson'));
  await peer.up();
  d = await startTestDaemon({ siteDir, forward });
  try {
    const status = await waitFor('the sink to pass the run', async () => {
      const s = await sinkStatus(d.url, 'peer');
      return s.skipped.length > 0 && s.lag_events === 0 ? s : undefined;
    });
    assert.equal(idsOf(peer.records), ['site:1', 'site:2']);
    assert.equal({ state: status.state, skipped: status.skipped },
      { state: 'skipped', skipped: [`${file} is gone: the events of run r1 after r1:0 in it were not forwarded`] });
  } finally {
    await d.close();
    await peer.down();
    removeDir(siteDir);
  }
});

test('a run file deleted by retention is not reported missing, also after a restart', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  const flags = { retain: '30d' };
  let d = await startTestDaemon({ siteDir, clock, flags });
  const file = path.join(siteDir, 'r1', 'telemetry.ndjson');
  try {
    await postEvent(d.url, { type: 'a', data: 1 });
    await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    await postEvent(d.url, { type: 'cam', data: 1 });
    await request(d.url, '/run/stop', { method: 'POST' });
    await postEvent(d.url, { type: 'a', data: 2 });
    const old = new Date(Date.parse(NOW) - 90 * 86_400_000);
    fs.utimesSync(file, old, old);
    assert.equal((await d.daemon.housekeeping!.runOnce()).deleted, [file]);
    const history = (await request(d.url, '/history')).json;
    assert.equal([history.events.map((e: any) => e.seq), history.damaged], [[1, 2], undefined]);
  } finally {
    await d.close();
  }
  d = await startTestDaemon({ siteDir, clock, flags });
  try {
    const history = (await request(d.url, '/history')).json;
    assert.equal([history.events.map((e: any) => e.seq), history.damaged], [[1, 2], undefined]);
    assert.is((await request(d.url, '/status')).json.damaged, undefined);
    assert.equal(d.logs.filter((l) => l.includes('missing')), []);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test.run();
