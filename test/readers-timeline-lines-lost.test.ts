import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Timeline lines lost whole (hostile tester D, issue 23, finding N2): what the files hold beyond
// what the timeline says is found (nothing goes to the site while a run is active; a run file
// only grows while its run is), named in the log and /status, and served; a run an older
// `.meridian/` says is active is not resumed to take new posts.

const NOW = '2026-03-17T20:00:00.000Z';
const ids = async (d: TestDaemon) => (await request(d.url, '/history')).json.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`);

async function record(d: TestDaemon, clock: ManualClock, steps: string[]): Promise<void> {
  for (const step of steps) {
    clock.advance(1000);
    if (step.startsWith('start ')) assert.is((await request(d.url, '/run/start', { body: { run_id: step.slice(6) } })).status, 200);
    else if (step === 'stop') assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
    else assert.is((await postEvent(d.url, { type: step, data: 1 })).status, 200);
  }
}

const timelineOf = (siteDir: string) => path.join(siteDir, '.meridian', 'timeline.ndjson');
const editLines = (siteDir: string, edit: (lines: string[]) => string[]) => {
  const lines = fs.readFileSync(timelineOf(siteDir), 'utf8').trim().split('\n');
  fs.writeFileSync(timelineOf(siteDir), edit(lines).map((l) => `${l}\n`).join(''));
};

const EVERY = ['site:1', 'r1:1', 'r1:2', 'r1:3', 'site:2', 'site:3', 'r2:1', 'r2:2', 'site:4', 'site:5'];
const STEPS = ['a', 'start r1', 'cam', 'cam', 'cam', 'stop', 'a', 'a', 'start r2', 'cam', 'cam', 'stop', 'a', 'a'];
const PREFIX = (siteDir: string) => `the timeline ${timelineOf(siteDir)} lacks lines: `;

// [name, the edit of the journal (4 lines: r1 start, r1 stop, r2 start, r2 stop), what /status and the log say after PREFIX]
const ROWS: [string, (lines: string[]) => string[], string][] = [
  ['the last line (r2\'s stop) lost', (l) => l.slice(0, 3),
    'run r2 is open in it since site seq 3, but the site files hold seqs up to 5 (its stop lost, or an older .meridian/ restored): ' +
    'it is closed at that site seq and the site seqs after it are served'],
  ['r1\'s stop lost', (l) => [l[0]!, l[2]!, l[3]!], 'run r1\'s stop is not in it (a line lost): closed at seq 3 and site seq 1, before run r2 started'],
  ['r2\'s start lost', (l) => [l[0]!, l[1]!, l[3]!], 'run r2\'s start is not in it (a line lost): its seqs 1..2 are placed at site seq 3'],
  ['r1\'s stop saying seq 1', (l) => [l[0]!, l[1]!.replace('"run_seq":3', '"run_seq":1'), l[2]!, l[3]!],
    'run r1\'s file holds seqs up to 3, past its journaled stop at seq 1 (a line lost or older): they are served with it'],
];

for (const [name, edit, said] of ROWS) {
  test(`${name}: every event served in record order, the timeline named in the log and /status`, async () => {
    const siteDir = tempDir();
    const clock = new ManualClock(NOW);
    let d = await startTestDaemon({ siteDir, clock });
    try {
      await record(d, clock, STEPS);
      assert.equal(await ids(d), EVERY);
    } finally {
      await d.close();
    }
    editLines(siteDir, edit);
    d = await startTestDaemon({ siteDir, clock });
    try {
      assert.equal(await ids(d), EVERY);
      assert.equal((await request(d.url, '/status')).json.damaged, [{ file: timelineOf(siteDir), reason: `it lacks lines: ${said}` }]);
      assert.equal(d.logs.filter((l) => l.includes(' lacks lines: ')).map((l) => l.slice(25)), [`WARN ${PREFIX(siteDir)}${said}`]);
      assert.equal((await request(d.url, '/history?cursor=site:4')).json.events.map((e: any) => e.seq), [5]);
      assert.is((await postEvent(d.url, { type: 'a', data: 2 })).json.seq, 6);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test('an older .meridian/ restored that says a run is active: the run is not resumed, posts go to the site, the events after it are served', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  const meridian = path.join(siteDir, '.meridian');
  const older = path.join(tempDir(), 'older');
  let d = await startTestDaemon({ siteDir, clock });
  try {
    await record(d, clock, ['a', 'start u1', 'cam']);
  } finally {
    await d.close();
  }
  fs.cpSync(meridian, older, { recursive: true });
  d = await startTestDaemon({ siteDir, clock });
  try {
    await record(d, clock, ['cam', 'stop', 'a', 'a']);
  } finally {
    await d.close();
  }
  fs.rmSync(meridian, { recursive: true });
  fs.cpSync(older, meridian, { recursive: true });
  fs.rmSync(path.join(meridian, 'daemon.lock'), { force: true });
  d = await startTestDaemon({ siteDir, clock });
  try {
    assert.is((await request(d.url, '/run')).status, 404);
    assert.is((await postEvent(d.url, { type: 'a', data: 2 })).json.seq, 4);
    assert.equal(await ids(d), ['site:1', 'u1:1', 'u1:2', 'site:2', 'site:3', 'site:4']);
    assert.equal((await request(d.url, '/status')).json.damaged.map((x: any) => x.file), [timelineOf(siteDir), path.join(meridian, 'active-run.json')]);
  } finally {
    await d.close();
    removeDir(siteDir);
    removeDir(path.dirname(older));
  }
});

test.run();
