import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SinkStatus } from '../lib/wire.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startBroker, subscribe, type TestBroker } from './helpers/mosquitto.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Two daemons with one --unit-id on the MQTT and HTTP sinks (hostile H, issue 27: the clash check
// was PostgreSQL's only). MQTT with clash_check: each daemon announces its instance retained at
// <prefix>/%instance and hears the other's live announcement: both /status name the other; a
// restart (the retained announcement of a daemon gone) is no clash. HTTP: the sink cannot tell
// (a receiver answers 2xx to both), so each POST says its instance for the receiver to tell.

let broker: TestBroker;
test.before(async () => { broker = await startBroker(); });
test.after(() => broker.remove());

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const TS = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;
const SINK = () => `[[sink]]\nname = "bus"\nurl = "${broker.url}"\nprefix = "clash"\nunit_topic = true\nclash_check = true\n${QUICK}`;
const open = (siteDir: string) => startTestDaemon({ siteDir, flags: { unitId: 'twin' }, forward: sinksOf(SINK()) });

test('MQTT clash_check: two daemons as unit "twin" each name the other in /status; one daemon restarted is no clash', async () => {
  const announced = await subscribe(broker.url, 'clash/twin/%instance', true);
  const sites = [tempDir(), tempDir()];
  let daemons: TestDaemon[] = [];
  try {
    daemons = await Promise.all(sites.map(open));
    for (const d of daemons) await postEvent(d.url, { type: 'weather', data: 1 });
    const clashes = await Promise.all(daemons.map((d) => waitFor('the clash in /status', async () => {
      const s = await caughtUp(d.url, 'bus');
      return s.clash === undefined ? undefined : s;
    })));
    const instances = [...new Set(announced.messages.map((m) => (JSON.parse(m.payload) as { instance: string }).instance))];
    assert.is(instances.length, 2, 'two instances announced themselves');
    const named = clashes.map((s) => UUID.exec(s.clash!)![0]);
    assert.equal([...named].sort(), [...instances].sort(), 'each names the other');
    assert.is.not(named[0], named[1]);
    for (const s of clashes) {
      assert.is(s.clash!.replace(UUID, 'ID').replace(TS, 'TS'),
        'another daemon (instance ID) forwards as unit "twin" to clash/twin now; give each unit its own --unit-id (TS)');
      assert.equal([s.state, s.delivered, s.dead_letters], ['ok', 1, 0], 'the records still go');
    }
    assert.equal(announced.messages.map((m) => JSON.parse(m.payload).unit), announced.messages.map(() => 'twin'));
    await Promise.all(daemons.map((d) => d.close()));
    daemons = [];
    // the first one alone again (a restart): the retained announcement is of a daemon gone
    daemons = [await open(sites[0]!)];
    await postEvent(daemons[0]!.url, { type: 'weather', data: 2 });
    const alone: SinkStatus = await caughtUp(daemons[0]!.url, 'bus');
    await waitFor('its announcement', () => (announced.messages.length >= instances.length + 3 ? true : undefined));
    assert.equal([alone.state, alone.clash, 'clash' in alone], ['ok', undefined, false]);
  } finally {
    await Promise.all(daemons.map((d) => d.close()));
    await announced.close();
    for (const dir of sites) removeDir(dir);
  }
});

test('HTTP: each POST says its daemon\'s instance in X-Meridian-Instance, apart for two daemons of one unit id', async () => {
  const peer = await startPeer();
  const sink = `[[sink]]\nname = "web"\nurl = "${peer.url}"\n${QUICK}`;
  const seen: string[] = [];
  for (const data of [1, 2]) {
    const d = await startTestDaemon({ flags: { unitId: 'twin' }, forward: sinksOf(sink) });
    try {
      await postEvent(d.url, { type: 'weather', data });
      await caughtUp(d.url, 'web');
      seen.push(String(peer.lastHeaders()?.['x-meridian-instance']));
    } finally {
      await d.close();
      removeDir(d.siteDir);
    }
  }
  await peer.down();
  assert.ok(seen.every((s) => new RegExp(`^${UUID.source}$`).test(s)), seen.join(' '));
  assert.is.not(seen[0], seen[1]);
});

test.run();
