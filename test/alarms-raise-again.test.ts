import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { startWebhook } from './helpers/webhook.js';
import { postEvent, request } from './helpers/http.js';
import { waitFor } from './helpers/forward.js';

// A raise after a clear is a new raise wherever the alarm was (hostile tester M, finding 3: a
// latched alarm raised again from rtn_unack kept its old raised_at and escalated_at, so it was
// never escalated again): raised_at moves to the raise, escalated_at empties and the raise is
// escalated to the webhook again after escalate_after. And shelving a shelved alarm again
// (finding 6) is a transition: shelved -> shelved with the new time, since moved to it.

const CONFIG = (hook: string) => `
[[alarm]]
id = "wind"
severity = "serious"
when = "wind.data.v > 40"
clear = "wind.data.v < 30"
latch = true
escalate_after = "1s"
message = "wind high"

[[notify]]
url = "${hook}"
retry_min_ms = 50
retry_max_ms = 200
`;

interface Logged { ts: string; type: string; data: { from?: string; to?: string; raised_at?: string; by?: string; shelved_until?: string } }

async function log(url: string): Promise<Logged[]> {
  return (await request(url, '/history?type=meridian.alarm,meridian.escalation&limit=100')).json.events as Logged[];
}

const said = (events: Logged[]) => events.map((e) => (e.type === 'meridian.escalation' ? `escalation ${e.data.raised_at}` : `${e.data.from}>${e.data.to}`));

test('latched, raised again from rtn_unack: raised_at is the new raise, escalated again to the webhook with it', async () => {
  const hook = await startWebhook(() => 200);
  try {
    await withTestDaemon({ config: CONFIG(hook.url()) }, async (d) => {
      await postEvent(d.url, { type: 'wind', data: { v: 50 } });
      await hook.until((a) => a.length === 1);
      await postEvent(d.url, { type: 'wind', data: { v: 10 } });
      await waitFor('rtn_unack', async () => ((await request(d.url, '/alarms/wind')).json.state === 'rtn_unack' ? true : undefined));
      await postEvent(d.url, { type: 'wind', data: { v: 55 } });
      await waitFor('a second escalation', async () => (hook.attempts.length === 2 ? true : undefined));
      const events = await log(d.url);
      const raises = events.filter((e) => e.data.to === 'unack').map((e) => e.ts);
      assert.equal(said(events), ['normal>unack', `escalation ${raises[0]}`, 'unack>rtn_unack', 'rtn_unack>unack', `escalation ${raises[1]}`]);
      assert.equal(hook.attempts.map((a) => [a.body.alarm.raised_at, a.body.alarm.state]), [[raises[0], 'unack'], [raises[1], 'unack']]);
      const alarm = (await request(d.url, '/alarms/wind')).json;
      const escalations = events.filter((e) => e.type === 'meridian.escalation').map((e) => e.ts);
      assert.equal([alarm.state, alarm.severity, alarm.since, alarm.raised_at, alarm.escalated_at], ['unack', 'serious', raises[1], raises[1], escalations[1]]);
    });
  } finally {
    await hook.close();
  }
});

test('shelving a shelved alarm again is a transition: shelved>shelved recorded, since and shelved_until moved', async () => {
  const hook = await startWebhook(() => 200);
  try {
    await withTestDaemon({ config: CONFIG(hook.url()) }, async (d) => {
      await postEvent(d.url, { type: 'wind', data: { v: 50 } });
      const first = await request(d.url, '/alarms/wind/shelve', { body: { by: 'ops', for_s: 60 } });
      const again = await request(d.url, '/alarms/wind/shelve', { body: { by: 'night', for_s: 3600 } });
      assert.equal([first.status, again.status], [200, 200]);
      const events = (await log(d.url)).filter((e) => e.type === 'meridian.alarm');
      assert.equal(events.map((e) => [e.data.from, e.data.to, e.data.by ?? null, e.data.shelved_until ?? null]),
        [['normal', 'unack', null, null], ['unack', 'shelved', 'ops', first.json.shelved_until], ['shelved', 'shelved', 'night', again.json.shelved_until]]);
      assert.equal([again.json.state, again.json.since, first.json.since], ['shelved', events[2]!.ts, events[1]!.ts]);
      assert.ok(Date.parse(again.json.shelved_until) > Date.parse(first.json.shelved_until));
      assert.equal((await request(d.url, '/alarms/wind')).json, again.json);
    });
  } finally {
    await hook.close();
  }
});

test.run();
