import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, dayFile, failing, idRange, idsOf, QUICK, sinkStatus, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// What /status says when a sink could not read something (a file gone, lines that are no
// envelopes, a damaged compressed day, an unusable cursor for a sink starting at the end, a
// peer down for ephemeral events only): never ok with lag 0, and the stretch named.

const SINK = (url: string) => `[[sink]]\nname = "peer"\nurl = "${url}"\n${QUICK}`;
const ids = idsOf;
const range = idRange;

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
