import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { prng } from './helpers/prng.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// kill -9 at random moments around 40 alarms raising, escalating and clearing together (hostile
// tester E, finding 2): after each restart, per alarm, the transitions in the log lead exactly to
// its state in /alarms, no transition is recorded twice, and each raise's escalation is in the log
// exactly once (the state file writes the events ahead: daemon/alarms/journal.ts).

const N = 40;
const CONFIG = Array.from({ length: N }, (_, i) => `[[alarm]]\nid = "a${i}"\nseverity = "serious"\nwhen = "w.data.v > ${i}"\nescalate_after = "1s"\nmessage = "a${i}"\n`).join('\n')
  + '\n[[notify]]\nurl = "http://127.0.0.1:9/hook"\n';

interface Logged { type: string; data: { id: string; from?: string; to?: string } }

async function logged(d: ChildDaemon): Promise<Logged[]> {
  const out: Logged[] = [];
  for (const type of ['meridian.alarm', 'meridian.escalation']) {
    const page = await request(d.url, `/history?type=${type}&limit=10000`);
    out.push(...(page.json.events as { data: Logged['data'] }[]).map((e) => ({ type, data: e.data })));
  }
  return out;
}

/** Per alarm: the chain of its transitions must start normal, follow on, end at /alarms' state; each escalation once per raise. */
async function check(d: ChildDaemon, round: string): Promise<void> {
  assert.is((await postEvent(d.url, { type: 'marker', data: 1 })).status, 200);
  const alarms = (await request(d.url, '/alarms')).json.alarms as { id: string; state: string; escalated_at: string | null }[];
  const events = await logged(d);
  for (const a of alarms) {
    const chain = events.filter((e) => e.type === 'meridian.alarm' && e.data.id === a.id).map((e) => `${e.data.from}>${e.data.to}`);
    let at = 'normal';
    for (const step of chain) {
      assert.is(step.split('>')[0], at, `${round} ${a.id}: ${chain.join(' ')}`);
      at = step.split('>')[1]!;
    }
    assert.is(at, a.state, `${round} ${a.id}: ${chain.join(' ')} vs /alarms ${a.state}`);
    const raises = chain.filter((s) => s === 'normal>unack').length;
    const escalations = events.filter((e) => e.type === 'meridian.escalation' && e.data.id === a.id).length;
    // a raise escalated before the kill has its event; one not yet escalated has none
    const open = a.state === 'unack' && a.escalated_at === null ? 1 : 0;
    assert.is(escalations, raises - open, `${round} ${a.id}: ${raises} raises, ${escalations} escalations`);
  }
}

interface Saved { state: string; escalated_at: string | null }

/** Read the state file as fast as it can be read until one alarm's record satisfies `moved`. */
async function watch(file: string, moved: (r: Saved) => boolean): Promise<void> {
  const until = Date.now() + 20_000;
  for (;;) {
    let alarms: Record<string, Saved> = {};
    try {
      alarms = (JSON.parse(fs.readFileSync(file, 'utf8')) as { alarms: Record<string, Saved> }).alarms;
    } catch { /* not written yet */ }
    if (Object.values(alarms).some(moved)) return;
    if (Date.now() > until) throw new Error('timed out waiting for the state file');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('kill -9 at random moments while 40 alarms raise, escalate and clear: the log and /alarms agree, every escalation exactly once', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'meridian.toml');
  fs.writeFileSync(config, CONFIG);
  const site = path.join(dir, 'site');
  const args = ['--config', config];
  const random = prng(24_02);
  let d = await spawnDaemon({ siteDir: site, args });
  try {
    const file = path.join(site, '.meridian', 'alarms.json');
    // each round: the value posted, then kill -9 the moment the state file shows the first alarm of 40 moved
    const rounds: { v: number; moved: (r: Saved) => boolean }[] = [
      { v: 100, moved: (r) => r.state === 'unack' }, { v: 0, moved: (r) => r.state === 'normal' },
      { v: 100, moved: (r) => r.escalated_at !== null && r.state === 'unack' }, { v: 0, moved: (r) => r.state === 'normal' },
      { v: 100, moved: (r) => r.escalated_at !== null && r.state === 'unack' },
    ];
    for (const [round, { v, moved }] of rounds.entries()) {
      assert.is((await postEvent(d.url, { type: 'w', data: { v } })).status, 200);
      await watch(file, moved);
      // 0 to 2 ms later: anywhere in the write-ahead, the batch and the second write
      const delay = Math.floor(random() * 3);
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      d.child.kill('SIGKILL');
      assert.is(await d.exited, 'SIGKILL');
      d = await spawnDaemon({ siteDir: site, args, port: d.port });
      if (v === 100) {
        await waitFor('every alarm escalated', async () => {
          const alarms = (await request(d.url, '/alarms')).json.alarms as { escalated_at: string | null }[];
          return alarms.every((a) => a.escalated_at !== null) ? true : undefined;
        });
      }
      await check(d, `round ${round}`);
    }
  } finally {
    d.child.kill('SIGKILL');
    await d.exited;
    removeDir(dir);
  }
});

test.run();
