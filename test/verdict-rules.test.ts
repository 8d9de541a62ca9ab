import http from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfigFile } from '../lib/config-file.js';
import { resolveSafety } from '../daemon/safety/config.js';
import type { RecordedEvent } from '../daemon/storage/store.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// Issue 24's acceptance for the verdict's rules, against the real daemon: hysteresis over
// 10,000 samples, `for` on the daemon's test clock, and a raise within 1 s of the POST.

const specOf = (toml: string) => resolveSafety(parseConfigFile(toml, 'test.toml').safety, 'test.toml');

/** POST /event on one kept-alive connection (10,000 of them in turn). */
function poster(d: TestDaemon) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body: string) => new Promise<string>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: d.port, path: '/event', method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
  return { post, close: () => agent.destroy() };
}

/** Every meridian.safety event recorded while `fn` runs (the store's own listener: nothing is missed). */
async function verdictsDuring(d: TestDaemon, fn: () => Promise<void>): Promise<boolean[]> {
  const seen: boolean[] = [];
  const stop = d.daemon.store.onRecorded((e: RecordedEvent) => {
    if (e.reading.type === 'meridian.safety') seen.push((e.reading.envelope.data as { safe: boolean }).safe);
  });
  try {
    await fn();
    // a change judged by the last request is recorded in the next turn
    await new Promise((resolve) => setImmediate(resolve));
    await request(d.url, '/safety');
  } finally {
    stop();
  }
  return seen;
}

test('hysteresis: 10,000 samples alternating +-1% around the threshold, 5% clear margin: one change to unsafe, none back', () => withTestDaemon({
  safety: specOf('[safety]\n[[safety.rule]]\nname = "t"\nwhen = "sensor.data.v > 100"\nclear = "sensor.data.v < 95"\n'), safetyIntervalMs: 0,
}, async (d) => {
  const { post, close } = poster(d);
  try {
    await post('{"type":"sensor","data":{"v":90}}');
    assert.is((await request(d.url, '/safety')).json.safe, true);
    const changes = await verdictsDuring(d, async () => {
      for (let i = 0; i < 10_000; i++) await post(i % 2 === 0 ? '{"type":"sensor","data":{"v":101}}' : '{"type":"sensor","data":{"v":99}}');
    });
    assert.equal(changes, [false]);
    assert.equal((await request(d.url, '/safety')).json.reasons, ['rule t: sensor.data.v > 100']);
  } finally {
    close();
  }
}));

test('without a clear margin the same alternation flaps (the control of the test above)', () => withTestDaemon({
  safety: specOf('[safety]\n[[safety.rule]]\nname = "t"\nwhen = "sensor.data.v > 100"\n'), safetyIntervalMs: 0,
}, async (d) => {
  const { post, close } = poster(d);
  try {
    await post('{"type":"sensor","data":{"v":90}}');
    await request(d.url, '/safety');
    const changes = await verdictsDuring(d, async () => {
      for (let i = 0; i < 10; i++) {
        await post(i % 2 === 0 ? '{"type":"sensor","data":{"v":101}}' : '{"type":"sensor","data":{"v":99}}');
        await request(d.url, '/safety');
      }
    });
    assert.equal(changes, [false, true, false, true, false, true, false, true, false, true]);
  } finally {
    close();
  }
}));

test('for = 60s on the daemon\'s test clock: a 30 s excursion raises nothing; 60 s without a break raises', () => {
  const clock = new ManualClock('2026-11-25T01:00:00.000Z');
  return withTestDaemon({
    clock, safetyIntervalMs: 0, freshnessIntervalMs: 0,
    safety: specOf('[safety]\n[[safety.rule]]\nname = "wind"\nwhen = "weather.data.w > 40"\nclear = "weather.data.w < 30"\nfor = "60s"\n'),
  }, async (d) => {
    const { post, close } = poster(d);
    const safeAfter = async (w: number, advanceMs: number) => {
      await post(`{"type":"weather","data":{"w":${w}}}`);
      assert.is((await request(d.url, '/safety')).status, 200);
      clock.advance(advanceMs);
      // the for timer runs on the real clock: the test judges again itself
      d.daemon.safety.check();
      return (await request(d.url, '/safety')).json.safe as boolean;
    };
    try {
      // the first verdict (unsafe: no reading yet) is recorded at start
      assert.is((await request(d.url, '/safety')).json.safe, false);
      const changes = await verdictsDuring(d, async () => {
        assert.is(await safeAfter(10, 0), true);
        assert.equal([await safeAfter(50, 15_000), await safeAfter(50, 15_000), await safeAfter(50, 0)], [true, true, true]);
        assert.is(await safeAfter(10, 60_000), true, 'the excursion ended at 30 s');
        assert.equal([await safeAfter(50, 30_000), await safeAfter(50, 29_999)], [true, true]);
        assert.is(await safeAfter(50, 1), false, '60 s without a break');
        assert.is(await safeAfter(35, 0), false, 'hysteresis: 35 is not below the clear value');
        assert.is(await safeAfter(29, 0), true, 'for does not delay the clear');
      });
      assert.equal(changes, [true, false, true]);
    } finally {
      close();
    }
  });
});

test('a raise within 1 s of the POST that crosses the threshold: /safety at once, the event recorded within 1 s', () => withTestDaemon({
  safety: specOf('[safety]\n[[safety.rule]]\nname = "wind"\nwhen = "weather.data.w > 40"\nclear = "weather.data.w < 30"\n'), safetyIntervalMs: 0,
}, async (d) => {
  const { post, close } = poster(d);
  try {
    await post('{"type":"weather","data":{"w":10}}');
    assert.is((await request(d.url, '/safety')).json.safe, true);
    const recorded = new Promise<RecordedEvent>((resolve) => {
      const stop = d.daemon.store.onRecorded((e) => {
        if (e.reading.type === 'meridian.safety') { stop(); resolve(e); }
      });
    });
    const crossing = JSON.parse(await post('{"type":"weather","data":{"w":41}}')) as { ts: string };
    const answer = await request(d.url, '/safety');
    assert.equal([answer.json.safe, answer.json.reasons], [false, ['rule wind: weather.data.w > 40']]);
    const deadline = new Promise<undefined>((resolve) => globalThis.setTimeout(resolve, 1000));
    const event = await Promise.race([recorded, deadline]);
    assert.ok(event, 'meridian.safety recorded within 1 s');
    const envelope = event!.reading.envelope as unknown as { ts: string; data: { safe: boolean; since: string } };
    assert.equal(envelope.data.safe, false);
    assert.ok(Date.parse(envelope.ts) - Date.parse(crossing.ts) < 1000, `${envelope.ts} within 1 s of ${crossing.ts}`);
    assert.is(envelope.data.since, answer.json.since);
  } finally {
    close();
  }
}));

test.run();
