import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, ndjson, QUICK, sinksOf, startPeer, type PeerRecord } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The HTTP sink against a real local HTTP server: every event once, in order per stream,
// with its stream:seq; a peer that is down; a refused record; the cursor across a restart.

const SINK = (url: string) => `[[sink]]\nname = "peer"\nurl = "${url}"\n${QUICK}\n[sink.header_env]\nAuthorization = "PEER_AUTH"`;
const ENV = { PEER_AUTH: 'Bearer s3cret' };

function seqsOf(records: PeerRecord[], stream: string): number[] {
  return records.filter((r) => r.stream === stream).map((r) => r.seq);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

test('steady state: every event arrives once, in order per stream, with its stream:seq and the envelope as answered', async () => {
  const peer = await startPeer();
  const d = await startTestDaemon({ forward: sinksOf(SINK(peer.url), ENV) });
  try {
    const answers: string[] = [];
    for (let i = 1; i <= 120; i++) answers.push((await postEvent(d.url, { type: 'weather', data: { i, t: 1.0 } })).text);
    await request(d.url, '/run/start', { method: 'POST', body: { run_id: '042' } });
    for (let i = 1; i <= 30; i++) answers.push((await postEvent(d.url, { type: i % 2 ? 'dome' : 'mount', data: i })).text);
    await request(d.url, '/run/stop', { method: 'POST' });
    for (let i = 121; i <= 130; i++) answers.push((await postEvent(d.url, { type: 'weather', data: { i } })).text);
    const status = await caughtUp(d.url, 'peer');
    assert.equal(seqsOf(peer.records, 'site'), range(1, 130));
    assert.equal(seqsOf(peer.records, '042'), range(1, 30));
    assert.is(peer.records.length, 160);
    for (const r of peer.records) assert.is(r.id, `${r.stream}:${r.seq}`);
    assert.equal(peer.records.map((r) => JSON.stringify(r.envelope)).sort(), answers.sort(), 'the envelopes as answered');
    assert.is(peer.lastHeaders()?.authorization, 'Bearer s3cret');
    assert.is(peer.lastHeaders()?.['content-type'], 'application/x-ndjson');
    assert.equal({ ...status, last_success: null }, {
      name: 'peer', kind: 'http', url: peer.url, state: 'ok', lag_events: 0, lag_seconds: 0, last_success: null,
      retries: 0, dead_letters: 0, last_error: null, delivered: 160, ephemeral_sent: 0, ephemeral_dropped: 0, skipped: [],
    });
    assert.ok(status.last_success !== null);
    assert.not.ok(d.logs.join('\n').includes('s3cret'), 'the secret is never logged');
  } finally {
    await d.close();
    await peer.down();
    removeDir(d.siteDir);
  }
});

test('the peer down for a while: the sink retries, the backlog drains once it is back, lag returns to 0, nothing missing', async () => {
  const peer = await startPeer();
  const d = await startTestDaemon({ forward: sinksOf(SINK(peer.url), ENV) });
  try {
    for (let i = 1; i <= 10; i++) await postEvent(d.url, { type: 'weather', data: i });
    await caughtUp(d.url, 'peer');
    await peer.down();
    for (let i = 11; i <= 200; i++) await postEvent(d.url, { type: 'weather', data: i });
    const down = await failing(d.url, 'peer');
    assert.is(down.lag_events, 190);
    assert.ok(down.lag_seconds >= 0.3, `lag ${down.lag_seconds} s`);
    assert.ok(down.retries >= 1);
    assert.match(down.last_error ?? '', /ECONNREFUSED/);
    await peer.up();
    const after = await caughtUp(d.url, 'peer');
    assert.equal(seqsOf(peer.records, 'site'), range(1, 200));
    assert.is(after.lag_seconds, 0);
    assert.ok(d.logs.some((l) => /sink peer: delivering again after/.test(l)));
  } finally {
    await d.close();
    await peer.down();
    removeDir(d.siteDir);
  }
});

test('a refused record goes to the dead-letter file with its reason; the sink keeps going', async () => {
  const peer = await startPeer({ refuse: (r) => r.envelope.data === 'poison' });
  const d = await startTestDaemon({ forward: sinksOf(SINK(peer.url), ENV) });
  try {
    for (let i = 1; i <= 60; i++) await postEvent(d.url, { type: 'weather', data: i === 17 ? 'poison' : i });
    const status = await caughtUp(d.url, 'peer');
    assert.is(status.dead_letters, 1);
    assert.equal(seqsOf(peer.records, 'site'), range(1, 60).filter((s) => s !== 17));
    const dead = ndjson(path.join(d.siteDir, '.meridian', 'forward', 'peer.dead.ndjson'));
    assert.is(dead.length, 1);
    assert.equal({ ...dead[0], at: undefined, envelope: { ...dead[0].envelope, ts: undefined } }, {
      at: undefined, sink: 'peer', id: 'site:17', stream: 'site', seq: 17, reason: 'HTTP 422: refused',
      envelope: { seq: 17, ts: undefined, type: 'weather', data: 'poison', meta: {} },
    });
  } finally {
    await d.close();
    await peer.down();
    removeDir(d.siteDir);
  }
});

test('the cursor survives a restart: a clean stop and start sends nothing twice', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  try {
    const first = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url), ENV) });
    for (let i = 1; i <= 25; i++) await postEvent(first.url, { type: 'weather', data: i });
    await caughtUp(first.url, 'peer');
    await first.close();
    const second = await startTestDaemon({ siteDir, forward: sinksOf(SINK(peer.url), ENV) });
    try {
      for (let i = 26; i <= 30; i++) await postEvent(second.url, { type: 'weather', data: i });
      await caughtUp(second.url, 'peer');
      assert.equal(seqsOf(peer.records, 'site'), range(1, 30));
    } finally {
      await second.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test('bodies byte for byte while catching up: lines of every size (bodies built ahead, their buffers used again), a failed POST sent again, non-ASCII text', async () => {
  const siteDir = tempDir();
  // the backlog: lines from a few bytes to ~6 KB, some with characters of 2 to 4 bytes, so that
  // a small body is written into the buffer of a large one, and one grows past its first guess
  const lines: string[] = [];
  for (let seq = 1; seq <= 600; seq++) {
    const text = (seq % 7 === 0 ? 'é€😀' : 'ab').repeat((seq * 7919) % 1000);
    lines.push(`{"seq":${seq},"ts":"2026-03-10T10:00:00.000Z","type":"t${seq % 3}","data":{"s":"${text}","n":1.50},"meta":{}}`);
  }
  fs.writeFileSync(path.join(siteDir, 'site_20260310.ndjson'), `${lines.join('\n')}\n`);
  const bodies: string[] = [];
  let posts = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // every fourth POST fails: the batch is sent again (its body built again)
      if (++posts % 4 === 0) return void res.writeHead(503).end();
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/ingest`;
  const d = await startTestDaemon({ siteDir, forward: sinksOf(`[[sink]]\nname = "peer"\nurl = "${url}"\n${QUICK}`) });
  try {
    await caughtUp(d.url, 'peer');
    // the unit's current view goes first after each failed POST, in POSTs of its own
    const current = /^\{"id":"site:\d+","unit":"localhost","stream":"site","seq":\d+,"current":true,"envelope":/;
    const backlog = bodies.filter((b) => !current.test(b));
    assert.ok(bodies.length - backlog.length >= 4, 'a current view after each failed POST');
    const got = backlog.flatMap((b) => b.split('\n').filter((l) => l !== '')).map((l) => {
      const head = /^\{"id":"site:(\d+)","unit":"localhost","stream":"site","seq":(\d+),"envelope":/.exec(l)!;
      assert.is(head[1], head[2]);
      assert.ok(l.endsWith('}'));
      return l.slice(head[0].length, -1);
    });
    assert.is(got.length, 600);
    assert.ok(got.every((l, i) => l === lines[i]), 'every envelope line byte for byte, in order, once');
    assert.ok(posts >= 16, `${posts} POSTs`);
  } finally {
    await d.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    removeDir(siteDir);
  }
});

test.run();
