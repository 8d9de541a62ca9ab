import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { fillDisk, mountTmpfs, removeDir, tempDir } from './helpers/tmp.js';

// An alarm transition on a really full disk (hostile tester I, finding 1): a 1 MiB tmpfs as
// the site directory, filled to the last byte while the daemon runs. The transition its
// event cannot be appended for is kept pending (in memory; the state file cannot be written
// either) and recorded, in order, as soon as the disk takes writes again, without waiting for
// another transition; the next transition comes after it; `state_error` clears as soon as the
// state file is written again; an acknowledgement on the full disk is refused (503), never
// answered and forgotten. Needs root to mount (elsewhere the test says so and checks nothing).

const CONFIG = '[[alarm]]\nid = "wind"\nseverity = "critical"\nwhen = "stale(wind)"\nmessage = "wind silent"\n';
const ERROR = 'the alarm state could not be written (ENOSPC)';

async function log(d: ChildDaemon): Promise<string[]> {
  const events = (await request(d.url, '/history?type=meridian.alarm&limit=100')).json.events as { data: { from: string; to: string }; meta: { alarm_n: number } }[];
  return events.map((e) => `${e.meta.alarm_n} ${e.data.from}>${e.data.to}`);
}

async function alarms(d: ChildDaemon): Promise<{ state: string; state_error?: string }> {
  const body = (await request(d.url, '/alarms')).json as { alarms: { state: string }[]; state_error?: string };
  return { state: body.alarms[0]!.state, ...(body.state_error === undefined ? {} : { state_error: body.state_error }) };
}

const mounted = process.platform === 'linux' ? mountTmpfs('1m') : { why: 'not Linux' };

if ('why' in mounted) {
  process.stderr.write(`alarms-disk-full-tmpfs: not run: cannot mount a tmpfs (${mounted.why})\n`);
} else {
  test('a transition whose event a full disk refuses is recorded, in order, once it takes writes; state_error clears then', async () => {
    const site = path.join(mounted.dir, 'site');
    const filler = path.join(mounted.dir, 'filler');
    const configDir = tempDir();
    const configFile = path.join(configDir, 'meridian.toml');
    fs.writeFileSync(configFile, CONFIG);
    fs.mkdirSync(site);
    let d: ChildDaemon | undefined;
    try {
      d = await spawnDaemon({ siteDir: site, args: ['--config', configFile, '--max-age', 'wind=1'], env: { TZ: 'UTC' } });
      // no reading yet: stale, raised at start; a reading clears it
      await waitFor('raised at start', async () => ((await alarms(d!)).state === 'unack' ? true : undefined));
      assert.is((await postEvent(d.url, { type: 'wind', data: { v: 1 } })).status, 200);
      await waitFor('cleared', async () => ((await log(d!)).length === 2 ? true : undefined));
      fillDisk(filler);
      // the reading turns stale after 1 s: raised in memory, its event and the state file refused by the full disk
      const full = await waitFor('raised on the full disk', async () => { const a = await alarms(d!); return a.state === 'unack' ? a : undefined; });
      assert.equal(full, { state: 'unack', state_error: ERROR });
      const ack = await request(d.url, '/alarms/wind/ack', { method: 'POST', body: { by: 'ops' } });
      assert.equal([ack.status, ack.json], [503, { detail: `The disk is full: alarm wind was left as it was: ${ERROR}.`, code: 'DISK_FULL' }]);
      assert.equal(await log(d), ['1 normal>unack', '2 unack>normal']);

      fs.rmSync(filler);
      // no new transition: the held-back event is recorded and the state written by the daemon's own looks
      const after = await waitFor('recorded once the disk has room', async () => { const l = await log(d!); return l.length === 3 ? l : undefined; });
      assert.equal(after, ['1 normal>unack', '2 unack>normal', '3 normal>unack']);
      assert.equal(await waitFor('state_error gone', async () => { const a = await alarms(d!); return a.state_error === undefined ? a : undefined; }), { state: 'unack' });
      assert.is((await postEvent(d.url, { type: 'wind', data: { v: 2 } })).status, 200);
      const last = await waitFor('the next transition after it', async () => { const l = await log(d!); return l.length === 4 ? l : undefined; });
      assert.equal(last, ['1 normal>unack', '2 unack>normal', '3 normal>unack', '4 unack>normal']);
      assert.ok(d.stderr().includes('1 alarm event(s) could not be recorded ('), d.stderr());
    } finally {
      if (d && d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
      await d?.exited;
      removeDir(configDir);
    }
  });

  test('an escalation that falls due on the full disk is recorded once it takes writes, not lost', async () => {
    const site = path.join(mounted.dir, 'site2');
    const filler = path.join(mounted.dir, 'filler2');
    const configDir = tempDir();
    const configFile = path.join(configDir, 'meridian.toml');
    // the webhook is never reached (port 9): the escalation's record is what is checked
    fs.writeFileSync(configFile, '[[notify]]\nurl = "http://127.0.0.1:9/hook"\n[[alarm]]\nid = "gust"\nseverity = "serious"\nwhen = "mast.data.g > 40"\nescalate_after = "2s"\n');
    fs.mkdirSync(site);
    let d: ChildDaemon | undefined;
    const escalations = async () => ((await request(d!.url, '/history?type=meridian.escalation&limit=10')).json.events as { data: { id: string; state: string }; meta: { alarm_n: number } }[])
      .map((e) => `${e.meta.alarm_n} ${e.data.id} ${e.data.state}`);
    try {
      d = await spawnDaemon({ siteDir: site, args: ['--config', configFile], env: { TZ: 'UTC' } });
      assert.is((await postEvent(d.url, { type: 'mast', data: { g: 50 } })).status, 200);
      await waitFor('raised', async () => ((await log(d!)).length === 1 ? true : undefined));
      fillDisk(filler);
      // due on the full disk: numbered and kept pending, escalated_at not shown until its event is recorded
      await waitFor('escalation held back on the full disk', async () => (d!.stderr().includes('1 alarm event(s) could not be recorded (') ? true : undefined));
      const due = (await request(d.url, '/alarms')).json as { alarms: { escalated_at: string | null }[]; state_error?: string };
      assert.equal([due.alarms[0]!.escalated_at, due.state_error], [null, ERROR]);
      assert.equal(await escalations(), []);
      fs.rmSync(filler);
      assert.equal(await waitFor('recorded once the disk has room', async () => { const e = await escalations(); return e.length === 1 ? e : undefined; }), ['2 gust unack']);
      const recorded = (await request(d.url, '/history?type=meridian.escalation&limit=10')).json.events as { ts: string }[];
      assert.is((await request(d.url, '/alarms/gust')).json.escalated_at, recorded[0]!.ts);
      assert.equal(await log(d), ['1 normal>unack']);
    } finally {
      if (d && d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
      await d?.exited;
      removeDir(configDir);
    }
  });
}

test.after(() => {
  if ('dir' in mounted) {
    execFileSync('umount', [mounted.dir]);
    removeDir(mounted.dir);
  }
});

test.run();
