import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { resolveSafety } from '../daemon/safety/config.js';
import type { RecordedEvent } from '../daemon/storage/store.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';

// Hostile tester I, findings 2 and 3, on the real daemon. (2) `when` and `clear` that both
// hold for one value (overlapping thresholds) keep the state, for an [[alarm]] as for a
// [safety] rule: each reading of such a value neither raises a normal condition nor clears a
// raised one. (3) An acknowledged alarm whose level worse than the one holding is raised
// again is a new transition (acked -> unack), latched or not: a dive to a worse level, and
// the latched worst level raised again after it cleared (docs/alarms.md "States").

const T0 = '2026-11-24T22:00:00.000Z';

const CONFIG = `
[[alarm]]
id = "overlap"
severity = "warning"
when = "a.data.v > 40"
clear = "a.data.v < 50"

[[alarm]]
id = "latched"
latch = true
[[alarm.level]]
severity = "warning"
when = "b.data.v > 40"
clear = "b.data.v < 30"
[[alarm.level]]
severity = "critical"
when = "b.data.v > 60"
clear = "b.data.v < 50"
`;

async function withAlarms(fn: (d: TestDaemon, events: () => string[], wait: (n: number) => Promise<void>) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  await withTestDaemon({ clock, config: CONFIG, freshnessIntervalMs: 5 }, async (d) => {
    const sse = new SseReader(d.url, '/stream?type=meridian.alarm&alarms=true');
    await sse.live();
    const events = () => sse.data('event').map((e) => {
      const x = e.data;
      return `${x.id} ${x.from}>${x.to} ${x.severity}${x.by ? ` ${x.by}` : ''}`;
    });
    try {
      await fn(d, events, (n) => sse.until(`${n} alarm events`, () => events().length >= n));
    } finally {
      sse.close();
    }
  });
}

const state = async (d: TestDaemon, id: string) => (await request(d.url, `/alarms/${id}`)).json.state as string;

test('an alarm whose when and clear both hold keeps its state: raised stays raised, normal stays normal', () => withAlarms(async (d, events, wait) => {
  // 45: both hold, from normal: stays normal
  for (let i = 0; i < 5; i++) await postEvent(d.url, { type: 'a', data: { v: 45 } });
  assert.is(await state(d, 'overlap'), 'normal');
  await postEvent(d.url, { type: 'a', data: { v: 55 } });
  await wait(1);
  // 45 again: both hold, from raised: stays raised, never a flap
  for (let i = 0; i < 5; i++) await postEvent(d.url, { type: 'a', data: { v: 45 } });
  assert.is(await state(d, 'overlap'), 'unack');
  await postEvent(d.url, { type: 'a', data: { v: 10 } });
  await wait(2);
  assert.equal(events(), ['overlap normal>unack warning', 'overlap unack>normal warning']);
}));

test('an acknowledged latched alarm: the worst level raised again, after it cleared, is a new raise (unack again)', () => withAlarms(async (d, events, wait) => {
  await postEvent(d.url, { type: 'b', data: { v: 65 } });
  await wait(1);
  // the critical level clears, the warning one holds: latched, still critical
  await postEvent(d.url, { type: 'b', data: { v: 45 } });
  const acked = await request(d.url, '/alarms/latched/ack', { body: { by: 'ops' } });
  assert.equal([acked.status, acked.json.state, acked.json.severity], [200, 'acked', 'critical']);
  await wait(2);
  await postEvent(d.url, { type: 'b', data: { v: 70 } });
  await wait(3);
  const again = (await request(d.url, '/alarms/latched')).json;
  assert.equal([again.state, again.severity, again.acked_by], ['unack', 'critical', null]);
  assert.equal(events(), ['latched normal>unack critical', 'latched unack>acked critical ops', 'latched acked>unack critical']);
}));

test('an acknowledged latched alarm: a dive to a worse level is a new raise (unack again)', () => withAlarms(async (d, events, wait) => {
  await postEvent(d.url, { type: 'b', data: { v: 45 } });
  await wait(1);
  assert.is((await request(d.url, '/alarms/latched/ack', { body: { by: 'ops' } })).status, 200);
  await wait(2);
  await postEvent(d.url, { type: 'b', data: { v: 65 } });
  await wait(3);
  // the same level holding on changes nothing
  await postEvent(d.url, { type: 'b', data: { v: 66 } });
  await postEvent(d.url, { type: 'b', data: { v: 10 } });
  await wait(4);
  assert.equal(events(), ['latched normal>unack warning', 'latched unack>acked warning ops', 'latched acked>unack critical', 'latched unack>rtn_unack critical']);
}));

test('a [safety] rule whose when and clear both hold keeps its state as the alarm does: one event each way', () => withTestDaemon({
  safety: resolveSafety(parseConfigFile('[safety]\n[[safety.rule]]\nname = "o"\nwhen = "s.data.v > 40"\nclear = "s.data.v < 50"\n', 'test.toml').safety, 'test.toml'),
  safetyIntervalMs: 0,
}, async (d) => {
  const recorded: string[] = [];
  const stop = d.daemon.store.onRecorded((e: RecordedEvent) => {
    if (e.reading.type === 'meridian.safety') recorded.push(JSON.stringify((e.reading.envelope.data as { reasons: unknown }).reasons));
  });
  const seen: boolean[] = [];
  try {
    for (const v of [10, 45, 45, 55, 45, 45, 45, 10]) {
      await postEvent(d.url, { type: 's', data: { v } });
      seen.push((await request(d.url, '/safety')).json.safe as boolean);
    }
  } finally {
    stop();
  }
  assert.equal(seen, [true, true, true, false, false, false, false, true]);
  // the first verdict (at start: no reading yet), then one change each way
  assert.equal(recorded, ['["rule o cannot be judged: s is missing (no reading)"]', '[]', '["rule o: s.data.v > 40"]', '[]']);
}));

test.run();
