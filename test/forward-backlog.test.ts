import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compressFile } from '../daemon/storage/compressed.js';
import { spawnDaemon, startTestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, QUICK, sinkStatus, sinksOf, startPeer, waitFor, type PeerRecord } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// What a sink must not lose: a run recorded while the sink was down (delivered after a
// restart, and never deleted by retention before), and what /status says when something
// could not be read (a file gone, lines that are no envelopes, a peer down for ephemeral
// events only): never ok with lag 0.

const SINK = (url: string) => `[[sink]]\nname = "peer"\nurl = "${url}"\n${QUICK}`;
const DAY = 86_400_000;

const ids = (records: PeerRecord[]) => records.map((r) => r.id);
const range = (stream: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${stream}:${from + i}`);

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

/** A site day file of envelopes seq from..to, with `extra` lines after the first. */
function dayFile(siteDir: string, day: string, from: number, to: number, extra: string[] = []): string {
  const file = path.join(siteDir, `site_${day}.ndjson`);
  const lines = [];
  for (let seq = from; seq <= to; seq++) lines.push(JSON.stringify({ seq, ts: `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}T10:00:00.000Z`, type: 'a', data: seq, meta: {} }));
  lines.splice(1, 0, ...extra);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** A cursor file for the sink `peer` at the start of `file` (after `seq`). */
function cursorAt(siteDir: string, file: string, seq: number): void {
  const dir = path.join(siteDir, '.meridian', 'forward');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'peer.cursor.json'), JSON.stringify({ format: 1, sink: 'peer', streams: { site: { file, offset: 0, seq } }, timeline: 1 }));
}

test('what a sink could not read is named in /status (state skipped), never ok with lag 0; kept across a restart', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  try {
    dayFile(siteDir, '20260314', 1, 2);
    const gone = dayFile(siteDir, '20260315', 3, 4);
    const torn = dayFile(siteDir, '20260316', 5, 7, ['{"seq":9999,"ts":"2026-03-16T10:', 'not json']);
    dayFile(siteDir, '20260317', 8, 9);
    cursorAt(siteDir, gone, 2);
    fs.unlinkSync(gone);
    const skipped = [
      `${gone} is gone: the site events after site:2 in it were not forwarded`,
      `2 line(s) of ${torn} that are no envelopes were passed over (after site:2)`,
    ];
    const first = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
    try {
      const status = await waitFor('the sink to read the backlog', async () => {
        const s = await sinkStatus(first.url, 'peer');
        return s.lag_events === 0 && s.state !== 'retrying' ? s : undefined;
      });
      assert.equal(ids(peer.records), range('site', 5, 9));
      assert.equal({ state: status.state, skipped: status.skipped }, { state: 'skipped', skipped });
      assert.ok(first.logs.some((l) => l.includes(`sink peer: ${skipped[0]}`)), 'and in the log');
      const text = (await request(first.url, '/metrics')).text;
      assert.match(text, 'meridian_sink_state{sink="peer",kind="http",state="skipped"} 1');
    } finally {
      await first.close();
    }
    const second = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
    try {
      await postEvent(second.url, { type: 'a', data: 10 });
      const status = await waitFor('the new event', async () => {
        const s = await sinkStatus(second.url, 'peer');
        return s.lag_events === 0 && s.delivered === 1 ? s : undefined;
      });
      assert.equal({ state: status.state, skipped: status.skipped }, { state: 'skipped', skipped });
    } finally {
      await second.close();
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

test('a damaged compressed day: what it holds before the damage is delivered, the rest named in /status, the next days delivered', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  try {
    const plain = dayFile(siteDir, '20260314', 1, 400);
    const gz = zlib.gzipSync(fs.readFileSync(plain));
    fs.writeFileSync(`${plain}.gz`, gz.subarray(0, Math.floor(gz.length / 2)));
    fs.unlinkSync(plain);
    dayFile(siteDir, '20260315', 401, 450);
    const d = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url)) });
    try {
      const status = await waitFor('the sink to read the backlog', async () => {
        const s = await sinkStatus(d.url, 'peer');
        return s.lag_events === 0 ? s : undefined;
      });
      const seqs = peer.records.map((r) => r.seq);
      const before = seqs.filter((q) => q <= 400);
      assert.equal(before, Array.from({ length: before.length }, (_, i) => i + 1), 'a prefix of the damaged day');
      assert.equal(seqs.filter((q) => q > 400), Array.from({ length: 50 }, (_, i) => 401 + i));
      assert.is(status.state, 'skipped');
      assert.is(status.skipped.length, 1);
      assert.match(status.skipped[0]!, new RegExp(`^${plain}\\.gz is damaged \\(.+\\): the site events in it there were not forwarded$`));
    } finally {
      await d.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test('start = "end": a new sink sends only what is recorded from now on; an unusable cursor is then named as skipped', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  const sink = `${SINK(peer.url)}\nstart = "end"`;
  try {
    dayFile(siteDir, '20260314', 1, 3);
    const first = await startTestDaemon({ siteDir, forward: sinksOf(sink) });
    try {
      for (let i = 4; i <= 5; i++) await postEvent(first.url, { type: 'a', data: i });
      const status = await caughtUp(first.url, 'peer');
      assert.equal([ids(peer.records), status.skipped], [range('site', 4, 5), []]);
    } finally {
      await first.close();
    }
    const cursor = path.join(siteDir, '.meridian', 'forward', 'peer.cursor.json');
    fs.writeFileSync(cursor, '{"format":1,');
    // the parser's own words (they differ between Node versions)
    const reason = (() => { try { JSON.parse('{"format":1,'); } catch (error) { return (error as Error).message; } return ''; })();
    const second = await startTestDaemon({ siteDir, forward: sinksOf(sink) });
    try {
      await postEvent(second.url, { type: 'a', data: 6 });
      const status = await waitFor('the new event', async () => {
        const s = await sinkStatus(second.url, 'peer');
        return s.delivered === 1 && s.lag_events === 0 ? s : undefined;
      });
      assert.equal(ids(peer.records), range('site', 4, 6));
      assert.equal({ state: status.state, skipped: status.skipped }, { state: 'skipped', skipped: [
        `${cursor} is not valid JSON (${reason}): the sink started again at the end of the log, and what was recorded before was not forwarded`,
      ] });
    } finally {
      await second.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test('ephemeral events only, with the peer down: /status says so (not ok), and ok again once one goes through', async () => {
  const peer = await startPeer();
  await peer.down();
  const d = await startTestDaemon({ forward: sinksOf(SINK(peer.url)) });
  try {
    await postEvent(d.url, { type: 'wind', data: 1, store_permanently: false });
    const down = await failing(d.url, 'peer');
    assert.equal({ state: down.state, lag: down.lag_events, sent: down.ephemeral_sent, dropped: down.ephemeral_dropped },
      { state: 'failing', lag: 0, sent: 0, dropped: 1 });
    assert.match(down.last_error ?? '', /ECONNREFUSED/);
    await peer.up();
    const up = await waitFor('an ephemeral event to go through', async () => {
      await postEvent(d.url, { type: 'wind', data: 2, store_permanently: false });
      const s = await sinkStatus(d.url, 'peer');
      return s.ephemeral_sent > 0 && s.state === 'ok' ? s : undefined;
    });
    assert.equal({ state: up.state, lag: up.lag_events, skipped: up.skipped }, { state: 'ok', lag: 0, skipped: [] });
    assert.equal(peer.records.map((r) => r.ephemeral), peer.records.map(() => true));
  } finally {
    await d.close();
    await peer.down();
    removeDir(d.siteDir);
  }
});

test.run();
