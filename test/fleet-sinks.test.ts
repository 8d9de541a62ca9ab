import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, idRange, idsOf, QUICK, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startBroker, subscribe, type TestBroker } from './helpers/mosquitto.js';
import { removeDir } from './helpers/tmp.js';

// Every record names its unit, and after an outage the unit's current view goes first (issue 27):
// the HTTP sink in a POST of records flagged current, the MQTT sink as the retained current
// topics (a level per unit with unit_topic), then the backlog in order.

let broker: TestBroker;
test.before(async () => { broker = await startBroker(); });
test.after(() => broker.remove());

/** The unit's /current envelopes by type. */
async function currentOf(url: string): Promise<Record<string, unknown>> {
  return (await request(url, '/current')).json.current as Record<string, unknown>;
}

test('HTTP: every record carries the unit; after the peer was down, one POST of the whole view flagged current, then the backlog in seq order', async () => {
  const peer = await startPeer();
  const d = await startTestDaemon({ flags: { unitId: 'dome-7' }, forward: sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`) });
  try {
    for (let i = 1; i <= 3; i++) await postEvent(d.url, { type: 'weather', data: i });
    await caughtUp(d.url, 'peer');
    assert.equal(peer.currentPosts, [], 'no view at a start without a backlog');
    await peer.down();
    for (let i = 4; i <= 120; i++) await postEvent(d.url, { type: i % 2 ? 'weather' : 'dome', data: i });
    await postEvent(d.url, { type: 'wind', data: 9, store_permanently: false });
    await failing(d.url, 'peer');
    await peer.up();
    await caughtUp(d.url, 'peer');
    assert.equal(idsOf(peer.records), idRange('site', 1, 120), 'the backlog once, in order');
    assert.equal([...new Set(peer.records.map((r) => r.unit))], ['dome-7']);
    // the first POST after the outage: the view, before any record of the backlog
    const first = peer.currentPosts[0]!;
    assert.is(first.before, 3);
    assert.equal(Object.fromEntries(first.records.map((r) => [r.envelope.type, r.envelope])), await currentOf(d.url));
    assert.equal(first.records.map((r) => [r.id, r.unit, r.stream, r.seq, r.current]).sort(),
      [['site:119', 'dome-7', 'site', 119, true], ['site:120', 'dome-7', 'site', 120, true], ['site:121', 'dome-7', 'site', 121, true]]);
  } finally {
    await d.close();
    await peer.down();
    removeDir(d.siteDir);
  }
});

test('MQTT with unit_topic: <prefix>/<unit>/<type> with a unit property; after the broker was down the retained view of every type comes before the backlog', async () => {
  const sub = await subscribe(broker.url, 'fleet/#');
  const d = await startTestDaemon({ flags: { unitId: 'pan012' }, forward: sinksOf(`[[sink]]\nname = "bus"\nurl = "${broker.url}"\nprefix = "fleet"\nunit_topic = true\n${QUICK}`) });
  try {
    await postEvent(d.url, { type: 'weather', data: 1 });
    await caughtUp(d.url, 'bus');
    await waitFor('the first event', () => (sub.messages.some((m) => m.topic === 'fleet/pan012/weather') ? true : undefined));
    await broker.stop();
    try {
      for (let i = 2; i <= 40; i++) await postEvent(d.url, { type: i % 2 ? 'weather' : 'dome', data: i });
      await postEvent(d.url, { type: 'wind', data: 9, store_permanently: false });
      await failing(d.url, 'bus');
    } finally {
      await broker.start();
    }
    await caughtUp(d.url, 'bus');
    await waitFor('site:40', () => (sub.messages.some((m) => m.seq === 40 && !m.retain && m.topic === 'fleet/pan012/dome') ? true : undefined));
    const afterOutage = sub.messages.slice(sub.messages.findIndex((m) => m.topic === 'fleet/pan012/weather') + 1)
      .filter((m) => !(m.topic.startsWith('fleet/pan012/current/') && m.seq === undefined && JSON.parse(m.payload).seq === 1));
    const view = await currentOf(d.url);
    const firstEvent = afterOutage.findIndex((m) => !m.topic.startsWith('fleet/pan012/current/'));
    const retained = afterOutage.slice(0, firstEvent);
    assert.equal(Object.fromEntries(retained.map((m) => [m.topic, JSON.parse(m.payload)])),
      Object.fromEntries(Object.entries(view).map(([type, e]) => [`fleet/pan012/current/${type}`, e])), 'the view first');
    const events = afterOutage.filter((m) => !m.topic.startsWith('fleet/pan012/current/'));
    assert.equal(events.map((m) => m.seq), Array.from({ length: 39 }, (_, i) => i + 2), 'then the backlog in order');
    assert.equal([...new Set(events.map((m) => m.unit))], ['pan012']);
  } finally {
    await d.close();
    await sub.close();
    removeDir(d.siteDir);
  }
});

test.run();
