import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withConsole } from './helpers/console-screen.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The console's `a` acknowledges what its line shows (hostile tester M, finding 5): the line
// shows WARNING, the alarm goes CRITICAL before the console reads it again, `a` is pressed:
// nothing is acknowledged, the line shows CRITICAL and says the alarm changed; `a` again
// acknowledges the critical. The console polls every 30 s here, so the change lands between
// its read and the key.

const CONFIG = `
[[alarm]]
id = "wind"
message = "wind high"
[[alarm.level]]
severity = "warning"
when = "weather.data.w > 40"
[[alarm.level]]
severity = "critical"
when = "weather.data.w > 60"
`;

const alarmLine = (screen: string): string => screen.split('\n')[2]!.trimEnd();

test('a on a line that shows WARNING while the alarm went CRITICAL: not acknowledged, the line updated and says so; a again acknowledges', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'meridian.toml');
  fs.writeFileSync(config, CONFIG);
  try {
    await withConsole(async (d, t) => {
      assert.is((await postEvent(d.url, { type: 'weather', data: { w: 45 } })).status, 200);
      t.run(['current', '--follow', '--host', '127.0.0.1', '--port', String(d.port), '--interval', '30'], { width: 100, height: 20, env: { NO_COLOR: '1' } });
      await t.waitFor('the warning', (s) => alarmLine(s).startsWith('WARNING UNACK wind '));
      assert.is((await postEvent(d.url, { type: 'weather', data: { w: 65 } })).status, 200);
      assert.is((await request(d.url, '/alarms/wind')).json.severity, 'critical');
      assert.ok(alarmLine(t.screen()).startsWith('WARNING UNACK wind '), 'the console has not read it again');
      t.keys('a');
      await t.waitFor('the change said', (s) => alarmLine(s).startsWith('a: wind changed to CRITICAL, not acknowledged | CRITICAL UNACK wind '));
      assert.equal([(await request(d.url, '/alarms/wind')).json.state], ['unack']);
      t.keys('a');
      await t.waitFor('acknowledged', (s) => /^acknowledged wind as \S+ \| CRITICAL ACKED wind /.test(alarmLine(s)));
      const events = (await request(d.url, '/history?type=meridian.alarm')).json.events.map((e: { data: { from: string; to: string; severity: string } }) => `${e.data.from}>${e.data.to} ${e.data.severity}`);
      assert.equal(events, ['normal>unack warning', 'unack>unack critical', 'unack>acked critical']);
    }, ['--config', config]);
  } finally {
    removeDir(dir);
  }
});

test.run();
