import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compressFile } from '../daemon/storage/compressed.js';
import { ManualClock } from './helpers/clock.js';
import { spawnDaemon, startTestDaemon } from './helpers/daemon.js';
import { caughtUp, dayFile, failing, idRange, idsOf, QUICK, sinkStatus, sinksOf, startPeer } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// What a sink must not lose: a run recorded while the sink was down (delivered after a
// restart, a clean one or kill -9, and never deleted by retention before), compressed days
// (read like plain ones, and kept by retention until delivered).

const SINK = (url: string) => `[[sink]]\nname = "peer"\nurl = "${url}"\n${QUICK}`;
const ids = idsOf;
const range = idRange;
const DAY = 86_400_000;

test('the clock steps back a day and forward again: the events written to the earlier day file are forwarded, once each', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  const clock = new ManualClock('2026-03-17T13:00:00.000Z'); // site day 20260317 (UTC)
  try {
    const d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' }, forward: sinksOf(SINK(peer.url)) });
    try {
      for (let i = 1; i <= 3; i++) await postEvent(d.url, { type: 'weather', data: i });
      await caughtUp(d.url, 'peer');
      clock.set('2026-03-17T11:00:00.000Z'); // back to site day 20260316
      for (let i = 4; i <= 5; i++) await postEvent(d.url, { type: 'weather', data: i });
      assert.equal(fs.readdirSync(siteDir).filter((n) => n.startsWith('site_')).sort(), ['site_20260316.ndjson', 'site_20260317.ndjson']);
      await caughtUp(d.url, 'peer');
      clock.set('2026-03-17T14:00:00.000Z'); // forward again: 20260317
      await postEvent(d.url, { type: 'weather', data: 6 });
      const status = await caughtUp(d.url, 'peer');
      assert.equal(ids(peer.records), range('site', 1, 6));
      assert.equal({ state: status.state, lag: status.lag_events, skipped: status.skipped }, { state: 'ok', lag: 0, skipped: [] });
    } finally {
      await d.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test('a run recorded while the sink was down is delivered after a restart, and retention keeps its file until then', async () => {
  const peer = await startPeer();
  await peer.down();
  const siteDir = tempDir();
  try {
    const first = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
    for (let i = 1; i <= 5; i++) await postEvent(first.url, { type: 'weather', data: i });
    await request(first.url, '/run/start', { method: 'POST', body: { run_id: '042' } });
    for (let i = 1; i <= 10; i++) await postEvent(first.url, { type: 'cam', data: i });
    await request(first.url, '/run/stop', { method: 'POST' });
    for (let i = 6; i <= 8; i++) await postEvent(first.url, { type: 'weather', data: i });
    assert.is((await failing(first.url, 'peer')).lag_events, 18);
    await first.close();
    const runFile = path.join(siteDir, '042', 'telemetry.ndjson');
    const old = new Date(Date.now() - 90 * DAY);
    fs.utimesSync(runFile, old, old);

    const second = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)), flags: { retain: '30d' } });
    try {
      const held = await second.daemon.housekeeping!.runOnce();
      assert.equal({ deleted: held.deleted, protected: held.protected.includes(runFile) }, { deleted: [], protected: true });
      assert.is((await sinkStatus(second.url, 'peer')).lag_events, 18, 'the run counts in the lag after the restart');
      await peer.up();
      const status = await caughtUp(second.url, 'peer');
      assert.equal(ids(peer.records), [...range('site', 1, 8), ...range('042', 1, 10)]);
      assert.equal({ state: status.state, skipped: status.skipped }, { state: 'ok', skipped: [] });
      const after = await second.daemon.housekeeping!.runOnce();
      assert.equal(after.deleted, [runFile], 'delivered: retention may delete it now');
    } finally {
      await second.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test('a sink added to a site directory with stopped runs forwards them all (start = "beginning", and again after its cursor is deleted); start = "end" none; retention holds them until delivered', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  const runFile = (id: string) => path.join(siteDir, id, 'telemetry.ndjson');
  try {
    const first = await startTestDaemon({ siteDir });
    for (let i = 1; i <= 3; i++) await postEvent(first.url, { type: 'weather', data: i });
    for (const id of ['x1', 'x2']) {
      await request(first.url, '/run/start', { method: 'POST', body: { run_id: id } });
      for (let i = 1; i <= 4; i++) await postEvent(first.url, { type: 'cam', data: i });
      await request(first.url, '/run/stop', { method: 'POST' });
    }
    for (let i = 4; i <= 5; i++) await postEvent(first.url, { type: 'weather', data: i });
    await first.close();
    const old = new Date(Date.now() - 90 * DAY);
    for (const id of ['x1', 'x2']) fs.utimesSync(runFile(id), old, old);
    const expected = [...range('site', 1, 5), ...range('x1', 1, 4), ...range('x2', 1, 4)];
    const atEnd = `[[sink]]\nname = "late"\nurl = "${peer.url}"\nstart = "end"\n${QUICK}`;

    await peer.down();
    const second = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url) + '\n' + atEnd), flags: { retain: '30d' } });
    try {
      const held = await second.daemon.housekeeping!.runOnce();
      assert.equal({ deleted: held.deleted, protected: [runFile('x1'), runFile('x2')].every((f) => held.protected.includes(f)) }, { deleted: [], protected: true });
      assert.equal([(await sinkStatus(second.url, 'peer')).lag_events, (await sinkStatus(second.url, 'late')).lag_events], [13, 0]);
      await peer.up();
      const status = await caughtUp(second.url, 'peer');
      assert.equal(ids(peer.records).sort(), [...expected].sort());
      assert.equal({ state: status.state, skipped: status.skipped }, { state: 'ok', skipped: [] });
      assert.equal((await second.daemon.housekeeping!.runOnce()).deleted.sort(), [runFile('x1'), runFile('x2')], 'delivered: retention may delete them now');
    } finally {
      await second.close();
    }

    // the cursor deleted (the documented way to send the backlog again): what is on disk is sent again, the deleted runs are no loss
    for (const name of ['peer.cursor.json', 'peer.cursor.json.next']) fs.rmSync(path.join(siteDir, '.meridian', 'forward', name), { force: true });
    peer.records.length = 0;
    const third = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
    try {
      const status = await caughtUp(third.url, 'peer');
      assert.equal(ids(peer.records), range('site', 1, 5));
      assert.equal({ state: status.state, skipped: status.skipped }, { state: 'ok', skipped: [] });
    } finally {
      await third.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test('kill -9 right after a run recorded while the sink was down: the run is delivered after the restart', async () => {
  const peer = await startPeer();
  await peer.down();
  const siteDir = tempDir();
  const config = path.join(siteDir, 'forward.toml');
  fs.writeFileSync(config, SINK(peer.url));
  try {
    const first = await spawnDaemon({ siteDir, args: ['--config', config] });
    await postEvent(first.url, { type: 'weather', data: 1 });
    await request(first.url, '/run/start', { method: 'POST', body: { run_id: '007' } });
    for (let i = 1; i <= 3; i++) await postEvent(first.url, { type: 'cam', data: i });
    await request(first.url, '/run/stop', { method: 'POST' });
    first.child.kill('SIGKILL');
    assert.is(await first.exited, 'SIGKILL');
    await peer.up();
    const second = await spawnDaemon({ siteDir, args: ['--config', config] });
    try {
      await caughtUp(second.url, 'peer');
      assert.equal(ids(peer.records), ['site:1', ...range('007', 1, 3)]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test('a new sink reads compressed days: all 1,000 events delivered, in order, ok at lag 0', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  try {
    await compressFile(dayFile(siteDir, '20260314', 1, 250));
    fs.writeFileSync(path.join(siteDir, 'site_20260315.ndjson.gz'), zlib.gzipSync(fs.readFileSync(dayFile(siteDir, '20260315', 251, 500))));
    fs.unlinkSync(path.join(siteDir, 'site_20260315.ndjson'));
    dayFile(siteDir, '20260316', 501, 1000);
    const d = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
    try {
      const status = await caughtUp(d.url, 'peer');
      assert.equal(ids(peer.records), range('site', 1, 1000));
      assert.equal({ state: status.state, lag: status.lag_events, delivered: status.delivered, skipped: status.skipped },
        { state: 'ok', lag: 0, delivered: 1000, skipped: [] });
    } finally {
      await d.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test('retention keeps a compressed day a sink has not delivered, and deletes it once delivered', async () => {
  const peer = await startPeer();
  await peer.down();
  const siteDir = tempDir();
  try {
    const plain = dayFile(siteDir, '20260101', 1, 50);
    await compressFile(plain);
    const old = new Date(Date.now() - 90 * DAY);
    fs.utimesSync(`${plain}.gz`, old, old);
    dayFile(siteDir, '20260102', 51, 60);
    const d = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)), flags: { retain: '30d' } });
    try {
      const held = await d.daemon.housekeeping!.runOnce();
      assert.equal({ deleted: held.deleted, protected: held.protected.includes(`${plain}.gz`) }, { deleted: [], protected: true });
      await peer.up();
      await caughtUp(d.url, 'peer');
      assert.equal(ids(peer.records), range('site', 1, 60));
      assert.equal((await d.daemon.housekeeping!.runOnce()).deleted, [`${plain}.gz`]);
    } finally {
      await d.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test.run();
