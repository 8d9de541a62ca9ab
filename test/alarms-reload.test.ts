import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { alarmSite } from './helpers/alarm-config.js';

// The state file read at start-up against a changed config and a stepped clock (hostile tester
// M, findings 2 and 4). A raised alarm whose input is stale at start keeps its state (an
// unknown input keeps the state) also when its severity or levels changed in the config: the
// raised level is kept as the nearest configured one, logged, no transition recorded. An
// escalation whose raise lies in the future on the new clock is due at most escalate_after
// from the start, logged.

const level = (severity: string, when: string, clear: string) => `[[alarm.level]]\nseverity = "${severity}"\nwhen = "${when}"\nclear = "${clear}"\n`;
const ALARM = (body: string) => `[[alarm]]\nid = "wind"\nmessage = "wind high"\n${body}`;

const ROWS: { name: string; before: string; after: string; post: number; state: string; severity: string; logged: string | null }[] = [
  { name: 'same config (the control)', before: ALARM('severity = "warning"\nwhen = "weather.data.w > 40"\n'), after: ALARM('severity = "warning"\nwhen = "weather.data.w > 40"\n'),
    post: 50, state: 'unack', severity: 'warning', logged: null },
  { name: 'severity changed', before: ALARM('severity = "warning"\nwhen = "weather.data.w > 40"\n'), after: ALARM('severity = "critical"\nwhen = "weather.data.w > 40"\n'),
    post: 50, state: 'unack', severity: 'critical', logged: 'alarm wind: severity warning is no longer configured (the config changed since the state file was written); kept unack as critical, raised as critical' },
  { name: 'the raised level removed', before: ALARM(level('warning', 'weather.data.w > 40', 'weather.data.w < 30') + level('critical', 'weather.data.w > 60', 'weather.data.w < 50')),
    after: ALARM(level('warning', 'weather.data.w > 40', 'weather.data.w < 30') + level('serious', 'weather.data.w > 60', 'weather.data.w < 50')),
    post: 70, state: 'unack', severity: 'serious', logged: 'alarm wind: severity critical is no longer configured (the config changed since the state file was written); kept unack as serious, raised as warning, serious' },
  { name: 'levels renamed to one severity', before: ALARM(level('warning', 'weather.data.w > 40', 'weather.data.w < 30') + level('critical', 'weather.data.w > 60', 'weather.data.w < 50')),
    after: ALARM('severity = "serious"\nwhen = "weather.data.w > 40"\n'),
    post: 70, state: 'unack', severity: 'serious', logged: 'alarm wind: severity critical, warning is no longer configured (the config changed since the state file was written); kept unack as serious, raised as serious' },
];

for (const row of ROWS) {
  test(`restart with its input stale at start, ${row.name}: kept ${row.state} ${row.severity}, no transition`, async () => {
    const { dir, site, args } = alarmSite(row.before);
    const all = [...args, '--max-age', 'weather=1'];
    let d: ChildDaemon = await spawnDaemon({ siteDir: site, args: all });
    try {
      assert.is((await postEvent(d.url, { type: 'weather', data: { w: row.post } })).status, 200);
      const posted = Date.now();
      await waitFor('raised', async () => ((await request(d.url, '/alarms/wind')).json.state === 'unack' ? true : undefined));
      d.child.kill('SIGKILL');
      await d.exited;
      fs.writeFileSync(all[1]!, row.after);
      // the reading is older than its 1 s limit when the daemon starts again
      await waitFor('the reading stale', async () => (Date.now() - posted > 1500 ? true : undefined));
      d = await spawnDaemon({ siteDir: site, args: all, port: d.port });
      const alarm = (await request(d.url, '/alarms/wind')).json;
      assert.equal([alarm.state, alarm.severity, alarm.active], [row.state, row.severity, true]);
      assert.match(String(alarm.unknown), /^weather is stale \(age [\d.]+ s, limit 1 s\)$/);
      await postEvent(d.url, { type: 'marker', data: 1 });
      const events = (await request(d.url, '/history?type=meridian.alarm')).json.events as { data: { from: string; to: string } }[];
      assert.equal(events.map((e) => `${e.data.from}>${e.data.to}`), ['normal>unack']);
      const lines = d.stderr().split('\n').filter((l) => l.includes('is no longer configured'));
      assert.equal(lines.map((l) => l.slice(l.indexOf('alarm wind:'))), row.logged === null ? [] : [row.logged]);
    } finally {
      d.child.kill('SIGKILL');
      await d.exited;
      removeDir(dir);
    }
  });
}

test('an escalation whose raise lies a year ahead (the clock stepped back) is due escalate_after from the start, logged', async () => {
  const config = '[[notify]]\nurl = "http://127.0.0.1:9/hook"\n[[alarm]]\nid = "wind"\nseverity = "serious"\nwhen = "wind.data.v > 40"\nescalate_after = "3s"\nmessage = "wind high"\n';
  const { dir, site, file, args } = alarmSite(config);
  let d: ChildDaemon = await spawnDaemon({ siteDir: site, args });
  try {
    assert.is((await postEvent(d.url, { type: 'wind', data: { v: 50 } })).status, 200);
    const raised = await waitFor('raised', async () => { const a = (await request(d.url, '/alarms/wind')).json; return a.state === 'unack' ? a : undefined; });
    d.child.kill('SIGKILL');
    await d.exited;
    const ahead = new Date(Date.parse(raised.raised_at) + 365 * 86_400_000).toISOString();
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(`"raised_at":"${raised.raised_at}"`, `"raised_at":"${ahead}"`));
    assert.ok(fs.readFileSync(file, 'utf8').includes(ahead));
    const start = Date.now();
    d = await spawnDaemon({ siteDir: site, args, port: d.port });
    const escalations = await waitFor('escalated', async () => {
      const e = (await request(d.url, '/history?type=meridian.escalation')).json.events as { data: { raised_at: string } }[];
      return e.length > 0 ? e : undefined;
    });
    assert.ok(Date.now() - start < 3000 + 2000, `escalated ${Date.now() - start} ms after the start`);
    assert.equal(escalations.map((e) => e.data.raised_at), [ahead]);
    assert.match(d.stderr(), new RegExp(`alarm wind: raised at ${ahead.replace(/\./g, '\\.')}, later than now \\(the clock was stepped\\); escalated at the latest \\S+, escalate_after from now`));
  } finally {
    d.child.kill('SIGKILL');
    await d.exited;
    removeDir(dir);
  }
});

test.run();
