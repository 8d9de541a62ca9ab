import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { alarmSite } from './helpers/alarm-config.js';
import { startWebhook } from './helpers/webhook.js';

// `.meridian/` read-only (hostile tester M, finding 1: a read-only bind mount of it, the site
// directory writable): the state file cannot be written, yet every transition and escalation
// is appended to the log, in number order, while it is read-only (the events are the record);
// `escalated_at` is set only with its escalation event; the log names the file that refused
// the write; once writable again the state file is written with every number used. Needs root
// to mount (elsewhere the test says so and checks nothing).

const CONFIG = (hook: string) => `[[notify]]\nurl = "${hook}"\nretry_min_ms = 50\nretry_max_ms = 200\n[[alarm]]\nid = "wind"\nseverity = "critical"\nwhen = "wind.data.v > 40"\nescalate_after = "1s"\nmessage = "wind high"\n`;
const ERROR = 'the alarm state could not be written (EROFS)';

function bindReadOnly(dir: string): string | undefined {
  try {
    execFileSync('mount', ['--bind', '-o', 'ro', dir, dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error).trim();
  }
}

async function log(d: ChildDaemon): Promise<string[]> {
  const events = (await request(d.url, '/history?type=meridian.alarm,meridian.escalation&limit=100')).json.events as
    { type: string; ts: string; data: { from?: string; to?: string }; meta: { alarm_n: number } }[];
  return events.map((e) => `${e.meta.alarm_n} ${e.type === 'meridian.escalation' ? 'escalation' : `${e.data.from}>${e.data.to}`}`);
}

async function wind(d: ChildDaemon): Promise<{ state: string; escalated_at: string | null; state_error?: string }> {
  const body = (await request(d.url, '/alarms')).json as { alarms: { state: string; escalated_at: string | null }[]; state_error?: string };
  const { state, escalated_at } = body.alarms[0]!;
  return { state, escalated_at, ...(body.state_error === undefined ? {} : { state_error: body.state_error }) };
}

test('.meridian/ read-only: transitions and escalations recorded in order, escalated_at with its event, state written once it can be', async () => {
  const hook = await startWebhook(() => 200);
  const { dir, site, file, args } = alarmSite(CONFIG(hook.url()));
  const stateDir = path.join(site, '.meridian');
  let d: ChildDaemon | undefined;
  let mounted = false;
  try {
    d = await spawnDaemon({ siteDir: site, args });
    assert.is((await postEvent(d.url, { type: 'wind', data: { v: 10 } })).status, 200);
    const why = bindReadOnly(stateDir);
    if (why !== undefined) {
      process.stderr.write(`alarms-readonly-state-mount: not run: cannot bind-mount read-only (${why})\n`);
      return;
    }
    mounted = true;
    assert.is((await postEvent(d.url, { type: 'wind', data: { v: 50 } })).status, 200);
    const escalated = await waitFor('escalated while read-only', async () => { const l = await log(d!); return l.length === 2 ? l : undefined; });
    assert.equal(escalated, ['1 normal>unack', '2 escalation']);
    const esc = (await request(d.url, '/history?type=meridian.escalation')).json.events as { ts: string }[];
    assert.equal(await wind(d), { state: 'unack', escalated_at: esc[0]!.ts, state_error: ERROR });
    // the webhook is sent it although its cursor under .meridian/forward/ cannot be written
    await waitFor('the webhook sent it', async () => (hook.attempts.length === 1 ? true : undefined));
    assert.equal([hook.attempts[0]!.body.alarm.id, hook.attempts[0]!.body.ts], ['wind', esc[0]!.ts]);
    // a caller's batch needs the store's batch journal beside the state file: refused, naming it
    const batch = await request(d.url, '/events', { method: 'POST', body: [{ type: 'mast', data: 1 }, { type: 'mast', data: 2 }] });
    assert.equal([batch.status, batch.json.code], [503, 'STORAGE_UNAVAILABLE']);
    assert.match(batch.json.detail, new RegExp(`${stateDir.replace(/[.]/g, '\\.')}/batch\\.json \\(EROFS\\)`), batch.json.detail);
    assert.is((await postEvent(d.url, { type: 'wind', data: { v: 10 } })).status, 200);
    assert.equal(await waitFor('cleared', async () => { const l = await log(d!); return l.length === 3 ? l : undefined; }), ['1 normal>unack', '2 escalation', '3 unack>normal']);

    execFileSync('umount', [stateDir]);
    mounted = false;
    assert.equal(await waitFor('state written again', async () => { const w = await wind(d!); return w.state_error === undefined ? w : undefined; }),
      { state: 'normal', escalated_at: esc[0]!.ts });
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { journal: { n: number; pending: unknown[] }; alarms: { wind: { state: string } } };
    assert.equal([saved.journal, saved.alarms.wind.state], [{ n: 3, pending: [] }, 'normal']);
    assert.is((await postEvent(d.url, { type: 'wind', data: { v: 60 } })).status, 200);
    assert.equal(await waitFor('the next transition after them', async () => { const l = await log(d!); return l.length === 4 ? l : undefined; }),
      ['1 normal>unack', '2 escalation', '3 unack>normal', '4 normal>unack']);
    const stderr = d.stderr();
    assert.not.match(stderr, /site_\d{8}\.ndjson failed/, stderr);
    // the one line the refused batch logs names the journal, not the day file
    // once, though the journal's batch is tried again every second and the wind readings between are written
    assert.equal(stderr.split('\n').filter((l) => l.includes('(503)')).map((l) => l.slice(l.indexOf('write of'))),
      [`write of 2 line(s) to ${stateDir}/batch.json failed (EROFS); not recorded (503) (said once until a write succeeds)`], stderr);
    assert.is(stderr.split(`alarm state ${file}: ${ERROR}; the alarms go on in memory and their events are recorded`).length - 1, 1, stderr);
  } finally {
    if (mounted) execFileSync('umount', ['-l', stateDir]);
    if (d && d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
    await d?.exited;
    await hook.close();
    removeDir(dir);
  }
});

test.run();
