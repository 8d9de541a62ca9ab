import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { startWebhook } from './helpers/webhook.js';
import { postEvent, request } from './helpers/http.js';
import { waitFor } from './helpers/forward.js';

// An escalation held back while the webhook is down, delivered after its alarm was acknowledged
// and cleared (hostile tester E, finding 7), says the alarm's state at delivery: the body's
// `state` and the text formats' words (docs/alarms.md "Escalation").

const CONFIG = (hook: string, format: string) => `
[[alarm]]
id = "power"
severity = "critical"
when = "power.data.v < 200"
escalate_after = "1s"
message = "mains lost"

[[notify]]
url = "${hook}"
format = "${format}"
retry_min_ms = 50
retry_max_ms = 200
`;

for (const format of ['json', 'ntfy'] as const) {
  test(`${format}: an escalation delivered after the alarm was acknowledged and cleared says so`, async () => {
    let up = false;
    const hook = await startWebhook(() => (up ? 200 : 503));
    try {
      await withTestDaemon({ config: CONFIG(hook.url(), format) }, async (d) => {
        await postEvent(d.url, { type: 'power', data: { v: 0 } });
        await hook.until((a) => a.length >= 1);
        assert.is((await request(d.url, '/alarms/power/ack', { method: 'POST', body: { by: 'ops' } })).status, 200);
        await postEvent(d.url, { type: 'power', data: { v: 300 } });
        const normal = await waitFor('power normal', async () => {
          const alarm = (await request(d.url, '/alarms/power')).json;
          return alarm.state === 'normal' ? alarm : undefined;
        });
        up = true;
        await hook.until((a) => a.some((x) => x.status === 200));
        const delivered = hook.attempts.find((x) => x.status === 200)!;
        const first = hook.attempts[0]!;
        if (format === 'json') {
          assert.is(first.body.alarm.state, 'unack');
          assert.is(delivered.body.alarm.state, 'normal');
        } else {
          assert.ok(String(first.body).includes('unacknowledged)'), String(first.body));
          assert.ok(String(delivered.body).includes(`, back to normal since ${normal.since})\nkey `), String(delivered.body));
        }
      });
    } finally {
      await hook.close();
    }
  });
}

test.run();
