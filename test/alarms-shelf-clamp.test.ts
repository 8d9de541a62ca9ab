import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { alarmSite } from './helpers/alarm-config.js';

// A shelf loaded at start-up never ends later than 7 days from now (hostile tester E, finding
// 6: a daemon run with its clock a year ahead shelved an alarm "for 60 s"): it is clamped and
// the clamp logged.

const CONFIG = '[[alarm]]\nid = "wind"\nseverity = "warning"\nwhen = "wind.data.v > 40"\nmessage = "wind high"\n';
const WEEK_MS = 7 * 86_400_000;

test('a shelf a year away in the state file ends 7 days from the restart, logged', async () => {
  const { dir, site, file, args } = alarmSite(CONFIG);
  let d = await spawnDaemon({ siteDir: site, args });
  try {
    await postEvent(d.url, { type: 'wind', data: { v: 50 } });
    const shelved = await request(d.url, '/alarms/wind/shelve', { method: 'POST', body: { by: 'ops', for_s: 60 } });
    assert.is(shelved.status, 200);
    d.child.kill('SIGKILL');
    await d.exited;
    const far = new Date(Date.parse(shelved.json.shelved_until) + 365 * 86_400_000).toISOString();
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(`"shelved_until":"${shelved.json.shelved_until}"`, `"shelved_until":"${far}"`));
    assert.ok(fs.readFileSync(file, 'utf8').includes(far));
    const before = Date.now();
    d = await spawnDaemon({ siteDir: site, args, port: d.port });
    const after = Date.now();
    const until = Date.parse((await request(d.url, '/alarms/wind')).json.shelved_until);
    assert.ok(until >= before + WEEK_MS && until <= after + WEEK_MS, `${new Date(until).toISOString()} is 7 days from the restart`);
    assert.match(d.stderr(), new RegExp(`alarm wind: shelved until ${far.replace(/\./g, '\\.')}, more than 7 days from now \\(the clock was stepped\\); shelved until \\S+`));
  } finally {
    d.child.kill('SIGKILL');
    await d.exited;
    removeDir(dir);
  }
});

test.run();
