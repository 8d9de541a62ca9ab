import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, TelemetryClientError } from '../client/index.js';
import type { AlarmAnswer } from '../lib/wire.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';

// The client's alarm methods against the real daemon, answers exact (the clock is injected):
// alarms(), alarm(), ack(), shelve(), unshelve(), their errors, and stream({alarms: true}).

const T0 = '2026-11-24T22:00:00.000Z';
const CONFIG = '[[alarm]]\nid = "wind"\nseverity = "serious"\nwhen = "weather.data.wind > 40"\nmessage = "wind high"';

const normal: AlarmAnswer = {
  id: 'wind', severity: 'serious', state: 'normal', active: false, since: T0, raised_at: null, value: null, message: 'wind high',
  acked_by: null, acked_at: null, shelved_until: null, escalated_at: null, unknown: 'weather is missing (no reading)',
};

test('alarms(), alarm(), ack(), shelve(), unshelve(): exact answers; errors as TelemetryClientError with the code', () => withTestDaemon(
  { clock: new ManualClock(T0), config: CONFIG, freshnessIntervalMs: 5 }, async (d) => {
    const client = new TelemetryClient({ baseUrl: d.url, env: {} });
    const controller = new AbortController();
    const messages: unknown[] = [];
    let changes = 0;
    let changed!: () => void;
    const next = () => new Promise<void>((resolve) => { changed = resolve; });
    let waiting = next();
    const reading = (async () => {
      for await (const m of client.stream({ alarms: true, types: ['none'], signal: controller.signal })) {
        messages.push(m.kind === 'alarm' ? { kind: 'alarm', state: m.alarm.state } : { kind: m.kind });
        if (m.kind === 'alarm' || m.kind === 'live') { changes++; changed(); }
      }
    })().catch(() => undefined);
    try {
      while (changes < 2) { await waiting; waiting = next(); }
      assert.equal(await client.alarms(), { alarms: [normal] });
      assert.equal(await client.alarm('wind'), normal);
      const missing = await client.alarm('nope').catch((e: unknown) => e);
      assert.ok(missing instanceof TelemetryClientError);
      assert.equal([missing.statusCode, missing.code, missing.detail], [404, 'UNKNOWN_ALARM', 'No alarm "nope" is configured.']);
      const nothing = await client.ack('wind', { by: 'ops' }).catch((e: unknown) => e);
      assert.equal([(nothing as TelemetryClientError).statusCode, (nothing as TelemetryClientError).code], [409, 'ALARM_NOT_UNACKED']);
      await client.postEvent('weather', { wind: 45 });
      while (changes < 3) { await waiting; waiting = next(); }
      const raised = { ...normal, state: 'unack' as const, active: true, value: 45, raised_at: T0, unknown: null };
      assert.equal(await client.alarm('wind'), raised);
      assert.equal(await client.ack('wind', { by: 'ops', note: 'seen' }), { ...raised, state: 'acked', acked_by: 'ops', acked_at: T0 });
      assert.equal((await client.shelve('wind', { by: 'ops', forSeconds: 90 })).shelved_until, '2026-11-24T22:01:30.000Z');
      assert.equal((await client.unshelve('wind', { by: 'ops' })).state, 'unack');
      const again = await client.unshelve('wind').catch((e: unknown) => e);
      assert.equal([(again as TelemetryClientError).statusCode, (again as TelemetryClientError).code], [409, 'ALARM_NOT_SHELVED']);
      while (changes < 6) { await waiting; waiting = next(); }
      assert.equal(messages, [
        { kind: 'alarm', state: 'normal' }, { kind: 'live' }, { kind: 'alarm', state: 'unack' }, { kind: 'alarm', state: 'acked' },
        { kind: 'alarm', state: 'shelved' }, { kind: 'alarm', state: 'unack' },
      ]);
    } finally {
      controller.abort();
      await reading;
      client.close();
    }
  }));

test.run();
