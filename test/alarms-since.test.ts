import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';

// `since` is the ts of the alarm's last transition event, whatever the transition (hostile
// tester E, finding 10): a raise to a worse level while unack, and a milder severity shown by
// an alarm that is not latched, move it as a raise from normal does.

const CONFIG = `
[[alarm]]
id = "wind"
message = "wind"
[[alarm.level]]
severity = "warning"
when = "wind.data.v > 10"
[[alarm.level]]
severity = "critical"
when = "wind.data.v > 40"
`;

interface Alarm { severity: string; state: string; since: string; raised_at: string | null }

test('since moves on every transition: normal>unack, a worse level raised, a milder severity shown', async () => {
  await withTestDaemon({ config: CONFIG }, async (d) => {
    const rows: [number, string][] = [[20, 'warning'], [50, 'critical'], [20, 'warning']];
    for (const [i, [v, severity]] of rows.entries()) {
      assert.is((await postEvent(d.url, { type: 'wind', data: { v } })).status, 200);
      const alarm = await waitFor(`wind ${severity}`, async () => {
        const a = (await request(d.url, '/alarms/wind')).json as Alarm;
        return a.severity === severity && a.state === 'unack' ? a : undefined;
      });
      await waitFor(`transition ${i}`, async () => {
        const events = (await request(d.url, '/history?type=meridian.alarm&limit=10')).json.events as { ts: string }[];
        return events.length === i + 1 ? true : undefined;
      });
      const events = (await request(d.url, '/history?type=meridian.alarm&limit=10')).json.events as { ts: string }[];
      assert.is(alarm.since, events[i]!.ts, `row ${i}: since is the ts of the transition's event`);
      if (i < 2) assert.is(alarm.raised_at, alarm.since, `row ${i}: a raise`);
    }
  });
});

test.run();
