import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startBroker, subscribe, type TestBroker } from './helpers/mosquitto.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The MQTT sink's retained current topics refilled when the broker lost them (hostile H, issue 27,
// finding 7): a real mosquitto running WITHOUT persistence is restarted while the unit is idle
// (nothing posted after), or while the unit itself is down; every type's retained reading comes
// back, equal to the unit's GET /current, without a single new event.

let broker: TestBroker;
test.before(async () => { broker = await startBroker(['persistence false']); });
test.after(() => broker.remove());

const SINK = `[[sink]]\nname = "bus"\nurl = "BROKER"\nprefix = "h7"\nunit_topic = true\n${QUICK}`;

/** The retained readings a new subscriber is given at once, by topic, as JSON, once there are `count`. */
async function retainedView(count: number): Promise<Record<string, unknown>> {
  return waitFor(`${count} retained readings`, async () => {
    const sub = await subscribe(broker.url, 'h7/pan007/current/#', true);
    try {
      // the broker sends what it retains right after the subscription: a ping round trip later it has
      await waitFor('the retained readings', () => (sub.messages.length >= count ? true : undefined), 1000).catch(() => undefined);
      const retained = sub.messages.filter((m) => m.retain);
      return retained.length >= count ? Object.fromEntries(retained.map((m) => [m.topic, JSON.parse(m.payload)])) : undefined;
    } finally {
      await sub.close();
    }
  }, 20_000);
}

/** The unit's /current as the retained topics should hold it. */
async function viewOf(d: TestDaemon): Promise<Record<string, unknown>> {
  const current = (await request(d.url, '/current')).json.current as Record<string, unknown>;
  return Object.fromEntries(Object.entries(current).map(([type, e]) => [`h7/pan007/current/${type}`, e]));
}

const start = (siteDir: string) => startTestDaemon({ siteDir, flags: { unitId: 'pan007' }, forward: sinksOf(SINK.replace('BROKER', broker.url)) });

test('the broker restarted without persistence while the unit is idle: every type retained again, as /current, with no new event', async () => {
  const d = await start(tempDir());
  try {
    for (const [type, data] of [['weather', 1], ['dome', 'open'], ['power', 230], ['weather', 2]] as const) await postEvent(d.url, { type, data });
    await caughtUp(d.url, 'bus');
    const view = await viewOf(d);
    assert.equal(Object.keys(view).length, 3);
    assert.equal(await retainedView(3), view, 'retained before the restart');
    await broker.stop();
    await broker.start();
    assert.equal(await retainedView(3), view, 'retained again after the restart, nothing posted');
    assert.equal(await viewOf(d), view, 'no event was recorded meanwhile');
    const status = await caughtUp(d.url, 'bus');
    assert.equal([status.state, status.delivered, status.dead_letters], ['ok', 4, 0]);
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
});

test('the broker restarted without persistence while the unit was down: the unit starting idle retains its view again', async () => {
  const siteDir = tempDir();
  try {
    let d = await start(siteDir);
    for (const [type, data] of [['weather', 7], ['dome', 'closed']] as const) await postEvent(d.url, { type, data });
    await caughtUp(d.url, 'bus');
    const view = await viewOf(d);
    await d.close();
    await broker.stop();
    await broker.start();
    d = await start(siteDir);
    try {
      assert.equal(await retainedView(2), view);
    } finally {
      await d.close();
    }
  } finally {
    removeDir(siteDir);
  }
});

test('every message carries the user property unit: the events, the retained current readings, the %instance announcement', async () => {
  const d = await startTestDaemon({ flags: { unitId: 'pan009' },
    forward: sinksOf(`[[sink]]\nname = "bus"\nurl = "${broker.url}"\nprefix = "k6"\nclash_check = true\n${QUICK}`) });
  const live = await subscribe(broker.url, 'k6/#', true);
  try {
    for (const [type, data] of [['weather', 1], ['dome', 'open']] as const) await postEvent(d.url, { type, data });
    await caughtUp(d.url, 'bus');
    const shown = (messages: typeof live.messages) => messages.map((m) => [m.topic, m.retain, m.unit]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    await waitFor('the live messages', () => (live.messages.filter((m) => m.topic !== 'k6/%instance').length >= 4 ? true : undefined), 5000);
    assert.equal(shown(live.messages.filter((m) => m.topic !== 'k6/%instance')), [
      ['k6/current/dome', false, 'pan009'], ['k6/current/weather', false, 'pan009'], ['k6/dome', false, 'pan009'], ['k6/weather', false, 'pan009']]);
    const later = await subscribe(broker.url, 'k6/#', true);
    try {
      await waitFor('the retained messages', () => (later.messages.length >= 3 ? true : undefined), 5000);
      assert.equal(shown(later.messages), [['k6/%instance', true, 'pan009'], ['k6/current/dome', true, 'pan009'], ['k6/current/weather', true, 'pan009']]);
    } finally {
      await later.close();
    }
  } finally {
    await live.close();
    await d.close();
    removeDir(d.siteDir);
  }
});

test.run();
