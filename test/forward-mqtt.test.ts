import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, ndjson, QUICK, sinksOf, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startBroker, subscribe, type Received, type TestBroker } from './helpers/mosquitto.js';
import { removeDir } from './helpers/tmp.js';

// The MQTT sink against a real mosquitto started by the test: each event at QoS 1 with its
// stream and seq as user properties, the retained current readings, the broker down for a
// while, and a record larger than the broker takes.

let broker: TestBroker;
test.before(async () => { broker = await startBroker(['max_packet_size 4096']); });
test.after(() => broker.remove());

const SINK = (prefix: string) => `[[sink]]\nname = "bus"\nurl = "${broker.url}"\nprefix = "${prefix}"\n${QUICK}`;

const seqsOf = (messages: Received[], stream: string) => messages.filter((m) => m.stream === stream).map((m) => m.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function received(messages: Received[], count: number): Promise<void> {
  await waitFor(`${count} messages`, () => (messages.length >= count ? true : undefined)).catch((error: Error) => {
    throw new Error(`${error.message}; have ${messages.length}`);
  });
}

test('steady state: each event to <prefix>/<type> once, in order per stream, with stream and seq; the current readings retained', async () => {
  const sub = await subscribe(broker.url, 'steady/#', true);
  const d = await startTestDaemon({ forward: sinksOf(SINK('steady')) });
  try {
    const sent: string[] = [];
    for (let i = 1; i <= 60; i++) sent.push((await postEvent(d.url, { type: i % 3 ? 'weather' : 'dome+status', data: i })).text);
    await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'r1' } });
    for (let i = 1; i <= 20; i++) sent.push((await postEvent(d.url, { type: 'camera', data: i })).text);
    await caughtUp(d.url, 'bus');
    await request(d.url, '/run/stop', { method: 'POST' });
    const events = () => sub.messages.filter((m) => !m.topic.startsWith('steady/current/'));
    await received(sub.messages, 80);
    await waitFor('the 80 events', () => (events().length >= 80 ? true : undefined));
    assert.equal(seqsOf(events(), 'site'), range(1, 60));
    assert.equal(seqsOf(events(), 'r1'), range(1, 20));
    assert.equal(events().map((m) => m.payload), sent);
    assert.equal([...new Set(events().map((m) => m.topic))], ['steady/weather', 'steady/dome%2Bstatus', 'steady/camera']);
    // a dashboard that connects now gets the latest reading of every type (as GET /current/<type>)
    const dashboard = await subscribe(broker.url, 'steady/current/#', true);
    try {
      await received(dashboard.messages, 3);
      const latest = Object.fromEntries(dashboard.messages.map((m) => [m.topic, [m.retain, JSON.parse(m.payload).seq]]));
      assert.equal(latest, { 'steady/current/weather': [true, 59], 'steady/current/dome%2Bstatus': [true, 60], 'steady/current/camera': [true, 20] });
    } finally {
      await dashboard.close();
    }
  } finally {
    await d.close();
    await sub.close();
    removeDir(d.siteDir);
  }
});

test('no event topic falls under <prefix>/current: types `current` and `current/weather` keep their own topics, the retained `weather` reading is weather\'s', async () => {
  const sub = await subscribe(broker.url, 'clash/#', true);
  const d = await startTestDaemon({ forward: sinksOf(SINK('clash')) });
  try {
    const sent: Array<[string, string]> = [];
    for (const type of ['weather', 'current/weather', 'current', 'current/']) sent.push([type, (await postEvent(d.url, { type, data: type })).text]);
    await caughtUp(d.url, 'bus');
    await received(sub.messages, 8);
    const events = sub.messages.filter((m) => !m.retain && !m.topic.startsWith('clash/current/')).map((m) => [m.topic, m.payload]);
    assert.equal(events, [['clash/weather', sent[0]![1]], ['clash/%63urrent/weather', sent[1]![1]], ['clash/%63urrent', sent[2]![1]], ['clash/%63urrent/', sent[3]![1]]]);
    const dashboard = await subscribe(broker.url, 'clash/current/#', true);
    try {
      await received(dashboard.messages, 4);
      await new Promise((resolve) => setImmediate(resolve));
      const latest = Object.fromEntries(dashboard.messages.map((m) => [m.topic, [m.retain, JSON.parse(m.payload).type]]));
      assert.equal(latest, { 'clash/current/weather': [true, 'weather'], 'clash/current/%63urrent/weather': [true, 'current/weather'], 'clash/current/%63urrent': [true, 'current'], 'clash/current/%63urrent/': [true, 'current/'] });
      assert.is(dashboard.messages.length, 4, 'nothing but the four retained readings under clash/current');
    } finally {
      await dashboard.close();
    }
  } finally {
    await d.close();
    await sub.close();
    removeDir(d.siteDir);
  }
});

test('the broker down for a while: the backlog drains once it is back, lag returns to 0, nothing missing', async () => {
  const sub = await subscribe(broker.url, 'outage/+');
  const d = await startTestDaemon({ forward: sinksOf(`${SINK('outage')}\nretain_current = false`) });
  try {
    for (let i = 1; i <= 10; i++) await postEvent(d.url, { type: 'weather', data: i });
    await caughtUp(d.url, 'bus');
    await received(sub.messages, 10);
    await broker.stop();
    try {
      for (let i = 11; i <= 160; i++) await postEvent(d.url, { type: 'weather', data: i });
      const down = await failing(d.url, 'bus');
      assert.is(down.lag_events, 150);
    } finally {
      await broker.start();
    }
    await caughtUp(d.url, 'bus');
    await waitFor('every seq', () => (new Set(seqsOf(sub.messages, 'site')).size >= 160 ? true : undefined));
    assert.equal([...new Set(seqsOf(sub.messages, 'site'))].sort((a, b) => a! - b!), range(1, 160));
  } finally {
    await d.close();
    await sub.close();
    removeDir(d.siteDir);
  }
});

test('a record larger than the broker takes goes to the dead-letter file; the sink keeps going', async () => {
  const sub = await subscribe(broker.url, 'big/+', true);
  const d = await startTestDaemon({ forward: sinksOf(SINK('big')) });
  try {
    for (let i = 1; i <= 30; i++) await postEvent(d.url, { type: 'camera', data: i === 12 ? 'x'.repeat(5000) : i });
    const status = await caughtUp(d.url, 'bus');
    assert.is(status.dead_letters, 1);
    await received(sub.messages, 29);
    assert.equal(seqsOf(sub.messages, 'site'), range(1, 30).filter((s) => s !== 12));
    const dead = ndjson(path.join(d.siteDir, '.meridian', 'forward', 'bus.dead.ndjson'));
    assert.equal(dead.map((x) => [x.id, x.reason]), [['site:12', "site:12 is larger than the broker's maximum packet size (4096 bytes)"]]);
  } finally {
    await d.close();
    await sub.close();
    removeDir(d.siteDir);
  }
});

test.run();
