import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';

// Shelves and escalate_after run on the monotonic clock while the daemon runs (hostile tester E,
// finding 6): the wall clock stepped back an hour neither keeps a 3 s shelf going nor holds a
// 3 s escalation back. The test's clock moves by hand; the daemon's periodic look (real time)
// notices what is due.

const CONFIG = `
[[alarm]]
id = "wind"
severity = "serious"
when = "wind.data.v > 40"
escalate_after = "3s"
message = "wind high"

[[alarm]]
id = "dew"
severity = "warning"
when = "dew.data.dd < 2"
message = "dew close"

[[notify]]
url = "http://127.0.0.1:9/hook"
`;

test('wall clock stepped back 1 h: a 3 s shelf ends and a 3 s escalation fires after 3 s of monotonic time', async () => {
  const clock = new ManualClock('2026-11-25T02:00:00.000Z');
  await withTestDaemon({ config: CONFIG, clock, freshnessIntervalMs: 50 }, async (d) => {
    await postEvent(d.url, { type: 'wind', data: { v: 50 } });
    await postEvent(d.url, { type: 'dew', data: { dd: 1 } });
    await waitFor('both raised', async () => ((await request(d.url, '/alarms')).json.alarms as { state: string }[]).every((a) => a.state === 'unack') ? true : undefined);
    assert.is((await request(d.url, '/alarms/dew/shelve', { method: 'POST', body: { by: 'ops', for_s: 3 } })).status, 200);
    clock.step(-3_600_000);
    clock.advance(3_001);
    const dew = await waitFor('dew unshelved', async () => {
      const a = (await request(d.url, '/alarms/dew')).json as { state: string };
      return a.state !== 'shelved' ? a : undefined;
    }, 5_000);
    assert.is(dew.state, 'unack');
    const wind = await waitFor('wind escalated', async () => {
      const a = (await request(d.url, '/alarms/wind')).json as { escalated_at: string | null };
      return a.escalated_at !== null ? a : undefined;
    }, 5_000);
    assert.is(wind.escalated_at, '2026-11-25T01:00:03.001Z');
  });
});

test.run();
