import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The timeline journal (.meridian/timeline.ndjson) and the active-run record are two files; a
// crash between writing one and the other is repaired at start-up, so the record order of
// history and stream replay stays exact.

const state = (siteDir: string, name: string) => path.join(siteDir, '.meridian', name);
const order = async (d: TestDaemon) =>
  (await request(d.url, '/history')).json.events.map((e: { seq: number; data: string; meta: { run_id?: string } }) => `${e.meta.run_id ?? 'site'}:${e.seq}:${e.data}`);

/** Site event a, run r1 with event x; returns the active-run record as it was while the run ran. */
async function aRun(siteDir: string, stop: boolean): Promise<string> {
  const d = await startTestDaemon({ siteDir });
  try {
    await postEvent(d.url, { type: 't', data: 'a' });
    await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    await postEvent(d.url, { type: 't', data: 'x' });
    const active = fs.readFileSync(state(siteDir, 'active-run.json'), 'utf8');
    if (stop) await request(d.url, '/run/stop', { method: 'POST' });
    return active;
  } finally {
    await d.close();
  }
}

// [name, what the crash left, expected order after posting `later` on the restarted daemon]
const CRASHES: [string, boolean, (siteDir: string, active: string) => void, string[]][] = [
  ['the run start journaled, the active-run record never written', true,
    (dir) => fs.rmSync(state(dir, 'active-run.json'), { force: true }), ['site:1:a', 'r1:1:x', 'site:2:later']],
  ['the run stop journaled, the active-run record not yet removed', true,
    (dir, active) => fs.writeFileSync(state(dir, 'active-run.json'), active), ['site:1:a', 'r1:1:x', 'r1:2:later']],
  ['the start journaled but the journal lost its stop line', false,
    (dir) => fs.rmSync(state(dir, 'active-run.json'), { force: true }), ['site:1:a', 'r1:1:x', 'site:2:later']],
  ['a run active from before the journal existed', false,
    (dir) => fs.rmSync(state(dir, 'timeline.ndjson')), ['site:1:a', 'r1:1:x', 'r1:2:later']],
];

for (const [name, stop, crash, expected] of CRASHES) {
  test(`start-up repairs the timeline: ${name}`, async () => {
    const siteDir = tempDir();
    try {
      const active = await aRun(siteDir, stop);
      crash(siteDir, active);
      const d = await startTestDaemon({ siteDir });
      try {
        await postEvent(d.url, { type: 't', data: 'later' });
        assert.equal(await order(d), expected);
      } finally {
        await d.close();
      }
    } finally {
      removeDir(siteDir);
    }
  });
}

test.run();
