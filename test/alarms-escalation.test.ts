import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { startWebhook } from './helpers/webhook.js';
import { caughtUp } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';

// Escalation to a real local webhook through the forwarding machinery: an alarm left
// unacknowledged past `escalate_after` is POSTed once, with `Idempotency-Key: <unit>/<record
// id>/<ts>` and the key in the body. The webhook refuses the first attempt (503), is then down for a long
// outage (5 minutes by default; ESCALATION_OUTAGE_MS shortens it while developing), and comes
// back: the escalation is delivered once, every attempt with the same key. An alarm
// acknowledged before `escalate_after` sends nothing.

const OUTAGE_MS = Number(process.env.ESCALATION_OUTAGE_MS ?? 300_000);

const config = (hook: string, escalateAfter: string) => `
[[alarm]]
id = "power"
severity = "critical"
when = "power.data.v < 200"
escalate_after = "${escalateAfter}"
message = "mains lost"

[[alarm]]
id = "dome"
severity = "serious"
when = "dome.data.open == true"
escalate_after = "${escalateAfter}"
message = "dome open"

[[notify]]
url = "${hook}"
retry_min_ms = 50
retry_max_ms = 1000
`;

test(`the webhook refuses, then is down ${OUTAGE_MS / 1000}s: the escalation is delivered once after it comes back, every attempt with the same key`, async () => {
  const hook = await startWebhook((n) => (n === 1 ? 503 : 200));
  try {
    await withTestDaemon({ config: config(hook.url(), '1s'), flags: { unitId: 'pan001' } }, async (d) => {
      await postEvent(d.url, { type: 'power', data: { v: 0 } });
      await hook.until((a) => a.length === 1);
      await hook.downFor(OUTAGE_MS);
      await hook.until((a) => a.some((x) => x.status === 200));
      const alarm = (await request(d.url, '/alarms/power')).json;
      const escalations = (await request(d.url, '/history?type=meridian.escalation')).json.events;
      assert.is(escalations.length, 1);
      const key = `pan001/site:${escalations[0].seq}/${escalations[0].ts}`;
      assert.equal(hook.attempts.map((a) => [a.status, a.key]), [[503, key], [200, key]]);
      assert.equal(hook.attempts[1]!.body, {
        idempotency_key: key, unit: 'pan001', ts: escalations[0].ts,
        alarm: { id: 'power', severity: 'critical', state: 'unack', message: 'mains lost', raised_at: alarm.raised_at, value: 0, escalate_after_s: 1 },
    });
    assert.is(alarm.escalated_at, escalations[0].ts);
    const status = (await request(d.url, '/status')).json.forward[0];
    assert.equal([status.kind, status.state, status.lag_events, status.dead_letters], ['http', 'ok', 0, 0]);
    });
  } finally {
    await hook.close();
  }
});

test('an alarm acknowledged before escalate_after sends nothing', async () => {
  const hook = await startWebhook(() => 200);
  try {
    await withTestDaemon({ config: config(hook.url(), '2s') }, async (d) => {
      await postEvent(d.url, { type: 'power', data: { v: 0 } });
      await postEvent(d.url, { type: 'dome', data: { open: true } });
      assert.is((await request(d.url, '/alarms/power/ack', { body: { by: 'ops' } })).status, 200);
      // the other alarm, raised at the same time and left alone, escalates: by then the first would have
      await hook.until((a) => a.length >= 1);
      assert.equal(hook.attempts.map((a) => a.body.alarm.id), ['dome']);
      const escalations = (await request(d.url, '/history?type=meridian.escalation')).json.events;
      assert.equal(escalations.map((e: { data: { id: string } }) => e.data.id), ['dome']);
      assert.is((await request(d.url, '/alarms/power')).json.escalated_at, null);
    });
  } finally {
    await hook.close();
  }
});

test('the bodies of the three formats: json, ntfy (text and headers), slack ({"text"})', async () => {
  const hooks = [await startWebhook(() => 200), await startWebhook(() => 200), await startWebhook(() => 200)];
  const notify = ['json', 'ntfy', 'slack'].map((format, i) => `[[notify]]\nurl = "${hooks[i]!.url()}"\nformat = "${format}"\n`).join('');
  try {
    await withTestDaemon({ config: `${config('http://127.0.0.1:9/x', '1s').split('[[notify]]')[0]}${notify}`, flags: { unitId: 'pan012' } }, async (d) => {
      await postEvent(d.url, { type: 'power', data: { v: 12.5 } });
      await Promise.all(hooks.map((h) => h.until((a) => a.length >= 1)));
      const escalation = (await request(d.url, '/history?type=meridian.escalation')).json.events[0];
      const key = `pan012/site:${escalation.seq}/${escalation.ts}`;
      const raisedAt = escalation.data.raised_at;
      const line = `CRITICAL alarm power on pan012: mains lost (value 12.5, raised ${raisedAt}, unacknowledged)`;
      const [json, ntfy, slack] = hooks.map((h) => h.attempts[0]!);
      assert.equal(json!.body, { idempotency_key: key, unit: 'pan012', ts: escalation.ts, alarm: escalation.data });
      assert.equal([json!.key, json!.headers['content-type']], [key, 'application/json']);
      assert.equal(ntfy!.body, `${line}\nkey ${key}`);
      assert.equal([ntfy!.key, ntfy!.headers.title, ntfy!.headers.priority, ntfy!.headers.tags, ntfy!.headers['content-type']],
        [key, 'Meridian alarm power on pan012 (critical)', '5', 'rotating_light', 'text/plain; charset=utf-8']);
      assert.equal(slack!.body, { text: line, unit: 'pan012', idempotency_key: key });
      assert.equal(hooks.map((h) => h.attempts.length), [1, 1, 1]);
    });
  } finally {
    for (const h of hooks) await h.close();
  }
});

test('two units escalating to one webhook, and a site directory made again: every key differs, each body names its unit', async () => {
  const hook = await startWebhook(() => 200);
  const cfg = config(hook.url(), '1s');
  try {
    const keys: string[] = [];
    for (const unitId of ['pan001', 'pan002', 'pan001']) {
      // each daemon in a new site directory: its first escalation has the same record id as the others'
      await withTestDaemon({ config: cfg, flags: { unitId } }, async (d) => {
        const before = hook.attempts.length;
        await postEvent(d.url, { type: 'power', data: { v: 0 } });
        await hook.until((a) => a.length === before + 1);
        const escalation = (await request(d.url, '/history?type=meridian.escalation')).json.events[0];
        const attempt = hook.attempts[before]!;
        assert.equal([attempt.key, attempt.body.unit, attempt.body.idempotency_key],
          [`${unitId}/site:${escalation.seq}/${escalation.ts}`, unitId, attempt.key]);
        keys.push(attempt.key!);
      });
    }
    assert.is(new Set(keys).size, 3);
    assert.equal(hook.attempts.map((a) => a.body.unit), ['pan001', 'pan002', 'pan001']);
  } finally {
    await hook.close();
  }
});

test('the alarm value keeps the recorded spelling (Exact): GET /alarms, the meridian.alarm and escalation lines, every webhook body', async () => {
  const hooks = [await startWebhook(() => 200), await startWebhook(() => 200)];
  const cfg = `[[alarm]]\nid = "big"\nseverity = "warning"\nwhen = "big.data.v > 1"\nescalate_after = "1s"\nmessage = "big"\n`
    + `[[alarm]]\nid = "huge"\nseverity = "critical"\nwhen = "huge.data.a[1].v > 1"\nmessage = "huge"\n`
    + `[[notify]]\nurl = "${hooks[0]!.url()}"\n[[notify]]\nurl = "${hooks[1]!.url()}"\nformat = "ntfy"\n`;
  try {
    await withTestDaemon({ config: cfg, flags: { unitId: 'pan001' } }, async (d) => {
      for (const body of ['{"type":"big","data":{"v":12345678901234567890123}}', '{"type":"huge","data":{"a":[0,{"v":1e200}]}}']) {
        assert.is((await request(d.url, '/event', { method: 'POST', body, headers: { 'content-type': 'application/json' } })).status, 200);
      }
      assert.match((await request(d.url, '/alarms/big')).text, /"raised_at":"[^"]+","value":12345678901234567890123,"message":"big"/);
      assert.match((await request(d.url, '/alarms')).text, /"id":"huge",.*"value":1e200,"message":"huge"/);
      const lines = (await request(d.url, '/history?type=meridian.alarm')).text;
      assert.match(lines, /"data":\{"id":"big","from":"normal","to":"unack","severity":"warning","value":12345678901234567890123\}/);
      assert.match(lines, /"value":1e200\}/);
      await Promise.all(hooks.map((h) => h.until((a) => a.length >= 1)));
      assert.match(hooks[0]!.attempts[0]!.text, /,"alarm":\{"id":"big","severity":"warning","state":"unack","message":"big","raised_at":"[^"]+","value":12345678901234567890123,"escalate_after_s":1\}\}$/);
      const escalation = (await request(d.url, '/history?type=meridian.escalation')).text;
      assert.match(escalation, /"value":12345678901234567890123,"escalate_after_s":1\}/);
      assert.match(hooks[1]!.attempts[0]!.body, /^WARNING alarm big on pan001: big \(value 12345678901234567890123, raised /);
    });
  } finally {
    for (const h of hooks) await h.close();
  }
});

test('a caller cannot post meridian.alarm or meridian.escalation (a forged escalation would wake someone): 422 on every way in, nothing sent', async () => {
  const hook = await startWebhook(() => 200);
  try {
    await withTestDaemon({ config: config(hook.url(), '1h') }, async (d) => {
      for (const type of ['meridian.escalation', 'meridian.alarm']) {
        const forged = JSON.stringify({ type, data: { id: 'power', severity: 'critical', state: 'unack', message: 'x' } });
        const one = await request(d.url, '/event', { method: 'POST', body: forged, headers: { 'content-type': 'application/json' } });
        assert.equal([one.status, one.json], [422, { detail: `type ${type} is recorded by the daemon alone (docs/alarms.md); post another type.`, code: 'INVALID_BODY' }]);
        const batch = await request(d.url, '/events?partial=true', { method: 'POST', body: `{"type":"weather","data":1}\n${forged}\n`, headers: { 'content-type': 'application/x-ndjson' } });
        assert.equal([batch.status, batch.json.code, batch.json.recorded, batch.json.failures[0].detail],
          [422, 'BATCH_PARTLY_RECORDED', 1, `type ${type} is recorded by the daemon alone (docs/alarms.md); post another type.`]);
      }
      // the webhook's sink has read past everything recorded: nothing was for it
      await caughtUp(d.url, (await request(d.url, '/status')).json.forward[0].name);
      assert.equal((await request(d.url, '/history?type=meridian.escalation,meridian.alarm')).json.events, []);
      assert.equal(hook.attempts, []);
    });
  } finally {
    await hook.close();
  }
});

test.run();
