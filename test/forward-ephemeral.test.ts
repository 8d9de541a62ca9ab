import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, QUICK, sinkStatus, sinksOf, startPeer, waitFor, type Peer, type PeerOptions } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { answerChecker } from './helpers/openapi.js';
import { startBroker, subscribe, type TestBroker } from './helpers/mosquitto.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Ephemeral events (store_permanently false) forwarded live, best-effort, marked as such:
// against a real local HTTP peer and a real mosquitto. Dropped and counted while the sink is
// down or its queue is full; never retried, never replayed after a restart.

let broker: TestBroker;
test.before(async () => { broker = await startBroker(); });
test.after(() => broker.remove());

const HTTP_SINK = (url: string, extra = '') => `[[sink]]\nname = "peer"\nurl = "${url}"\n${QUICK}\n${extra}`;
const MQTT_SINK = (prefix: string) => `[[sink]]\nname = "bus"\nurl = "${broker.url}"\nprefix = "${prefix}"\n${QUICK}`;

const ephemeral = (data: unknown) => ({ type: 'wind', data, store_permanently: false });
const idsOf = (peer: Peer) => peer.records.map((r) => [r.id, r.ephemeral === true]);
// the ephemeral event is sent (order against durable events is not promised: it is live, they come from the files)
const sent = (url: string, name: string, n: number) => waitFor(`${n} ephemeral sent`, async () => ((await sinkStatus(url, name)).ephemeral_sent === n ? true : undefined));
/** Run `fn` with a daemon forwarding to a fresh peer (the sink named `peer`), then stop both. */
async function withPeer(extra: string, peerOpts: PeerOptions, fn: (d: TestDaemon, peer: Peer) => Promise<void>): Promise<void> {
  const peer = await startPeer(peerOpts);
  const d = await startTestDaemon({ forward: sinksOf(HTTP_SINK(peer.url, extra)) });
  try {
    await fn(d, peer);
  } finally {
    await d.close();
    await peer.down();
    removeDir(d.siteDir);
  }
}
const counts = async (url: string, name: string) => {
  const s = await sinkStatus(url, name);
  return { delivered: s.delivered, ephemeral_sent: s.ephemeral_sent, ephemeral_dropped: s.ephemeral_dropped };
};

test('HTTP: an ephemeral event arrives live with "ephemeral":true, between the durable ones; /status counts it', () => withPeer('', {}, async (d, peer) => {
  await postEvent(d.url, { type: 'weather', data: 1 });
  await caughtUp(d.url, 'peer');
  const live = await postEvent(d.url, ephemeral(9));
  await sent(d.url, 'peer', 1);
  assert.is((await sinkStatus(d.url, 'peer')).lag_events, 0, 'an ephemeral seq after the newest line is no lag');
  await postEvent(d.url, { type: 'weather', data: 3 });
  await caughtUp(d.url, 'peer');
  assert.equal(idsOf(peer), [['site:1', false], ['site:2', true], ['site:3', false]]);
  assert.is(JSON.stringify(peer.records[1]!.envelope), live.text, 'the envelope as answered');
  assert.equal(await counts(d.url, 'peer'), { delivered: 2, ephemeral_sent: 1, ephemeral_dropped: 0 });
  // the sink's line, new counts and all, as the served OpenAPI document describes it
  const doc = (await request(d.url, '/openapi.json')).json as OpenAPIObject;
  answerChecker(doc)('GET', '/status', await request(d.url, '/status'));
}));

test('HTTP: with the peer down ephemeral events are dropped and counted; the durable ones arrive after recovery, then ephemeral ones live again', () => withPeer('', {}, async (d, peer) => {
  await postEvent(d.url, { type: 'weather', data: 1 });
  await caughtUp(d.url, 'peer');
  await peer.down();
  for (let i = 2; i <= 4; i++) await postEvent(d.url, { type: 'weather', data: i });
  assert.is((await failing(d.url, 'peer')).lag_events, 3);
  await postEvent(d.url, ephemeral(5));
  await postEvent(d.url, ephemeral(6));
  assert.equal(await counts(d.url, 'peer'), { delivered: 1, ephemeral_sent: 0, ephemeral_dropped: 2 });
  await peer.up();
  await caughtUp(d.url, 'peer');
  await postEvent(d.url, ephemeral(7));
  await sent(d.url, 'peer', 1);
  assert.equal(idsOf(peer), [['site:1', false], ['site:2', false], ['site:3', false], ['site:4', false], ['site:7', true]]);
  assert.equal(await counts(d.url, 'peer'), { delivered: 4, ephemeral_sent: 1, ephemeral_dropped: 2 });
}));

test('HTTP: nothing ephemeral is replayed after a restart; the durable backlog is', async () => {
  const peer = await startPeer();
  const siteDir = tempDir();
  try {
    const first = await startTestDaemon({ siteDir, forward: sinksOf(HTTP_SINK(peer.url)) });
    await postEvent(first.url, { type: 'weather', data: 1 });
    await caughtUp(first.url, 'peer');
    await peer.down();
    await postEvent(first.url, { type: 'weather', data: 2 });
    await failing(first.url, 'peer');
    await postEvent(first.url, ephemeral(3));
    await first.close();
    await peer.up();
    const second = await startTestDaemon({ siteDir, forward: sinksOf(HTTP_SINK(peer.url)) });
    try {
      await postEvent(second.url, { type: 'weather', data: 4 });
      await caughtUp(second.url, 'peer');
      assert.equal(idsOf(peer), [['site:1', false], ['site:2', false], ['site:4', false]]);
      assert.equal(await counts(second.url, 'peer'), { delivered: 2, ephemeral_sent: 0, ephemeral_dropped: 0 });
    } finally {
      await second.close();
    }
  } finally {
    await peer.down();
    removeDir(siteDir);
  }
});

test('HTTP: a full queue drops its oldest; what waits when the delivery fails is dropped, not retried', () => withPeer('ephemeral_queue = 3', { holdPost: 2 }, async (d, peer) => {
  await postEvent(d.url, { type: 'weather', data: 1 });
  await caughtUp(d.url, 'peer');
  await postEvent(d.url, { type: 'weather', data: 2 });
  await peer.held; // the second POST is in flight and never answered
  for (let i = 3; i <= 7; i++) await postEvent(d.url, ephemeral(i));
  assert.equal(await counts(d.url, 'peer'), { delivered: 1, ephemeral_sent: 0, ephemeral_dropped: 2 });
  // past timeout_ms the POST counts as failed: the three queued are dropped, site:2 is sent again
  await caughtUp(d.url, 'peer');
  assert.equal(await counts(d.url, 'peer'), { delivered: 2, ephemeral_sent: 0, ephemeral_dropped: 5 });
  assert.equal(idsOf(peer), [['site:1', false], ['site:2', false], ['site:2', false]]);
}));

test('HTTP: ephemeral = false sends durable events only and counts nothing ephemeral', () => withPeer('ephemeral = false', {}, async (d, peer) => {
  await postEvent(d.url, ephemeral(1));
  await postEvent(d.url, { type: 'weather', data: 2 });
  await caughtUp(d.url, 'peer');
  assert.equal(idsOf(peer), [['site:2', false]]);
  assert.equal(await counts(d.url, 'peer'), { delivered: 1, ephemeral_sent: 0, ephemeral_dropped: 0 });
}));

test('MQTT: an ephemeral event published live with the user property ephemeral=true (and retained as current); dropped while the broker is down', async () => {
  // a persistent session: the broker keeps what it took while the subscriber reconnects after its restart
  const sub = await subscribe(broker.url, 'eph/#');
  const d = await startTestDaemon({ forward: sinksOf(MQTT_SINK('eph')) });
  const events = () => sub.messages.filter((m) => !m.topic.startsWith('eph/current/'));
  try {
    await postEvent(d.url, { type: 'weather', data: 1 });
    await caughtUp(d.url, 'bus');
    const live = await postEvent(d.url, ephemeral(2));
    await sent(d.url, 'bus', 1);
    await postEvent(d.url, { type: 'weather', data: 3 });
    await caughtUp(d.url, 'bus');
    await waitFor('3 events', () => (events().length >= 3 ? true : undefined));
    assert.equal(events().map((m) => [m.topic, m.seq, m.ephemeral]), [['eph/weather', 1, undefined], ['eph/wind', 2, 'true'], ['eph/weather', 3, undefined]]);
    assert.is(events()[1]!.payload, live.text);
    const current = sub.messages.filter((m) => m.topic === 'eph/current/wind').map((m) => JSON.parse(m.payload).seq);
    assert.equal(current, [2], 'the ephemeral reading is the current one');
    await broker.stop();
    try {
      await postEvent(d.url, { type: 'weather', data: 4 });
      await failing(d.url, 'bus');
      await postEvent(d.url, ephemeral(5));
      assert.equal(await counts(d.url, 'bus'), { delivered: 2, ephemeral_sent: 1, ephemeral_dropped: 1 });
    } finally {
      await broker.start();
    }
    await postEvent(d.url, { type: 'weather', data: 6 });
    await caughtUp(d.url, 'bus');
    await waitFor('site:6', () => (events().some((m) => m.seq === 6) ? true : undefined));
    assert.equal([...new Set(events().map((m) => m.seq))], [1, 2, 3, 4, 6]);
    assert.equal(await counts(d.url, 'bus'), { delivered: 4, ephemeral_sent: 1, ephemeral_dropped: 1 });
  } finally {
    await d.close();
    await sub.close();
    removeDir(d.siteDir);
  }
});

test.run();
