import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { withRestarts } from './helpers/restart.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Every state file under .meridian/ in every damaged state (hostile test C, findings 2, 5, 7
// and 20): the damage is named in the log, no recorded event is hidden, and no seq or derived
// run id repeats.

const NOW = '2026-03-17T20:00:00.000Z';
const CLOCK_MS = Date.parse(NOW) + 8000; // the clock when the damaged directory is opened again

const RECORDED = ['site:1', 'site:2', '001:1', '001:2', 'site:3', 'site:4'];
const state = (siteDir: string, name: string) => path.join(siteDir, '.meridian', name);

// [file, damage, the site seq of the next event, the warning]; /status names the damaged file (DAMAGE)
const ROWS: [string, string, (siteDir: string) => void, number, (siteDir: string) => string][] = [
  ['timeline.ndjson', '0 bytes', (s) => fs.writeFileSync(state(s, 'timeline.ndjson'), ''), 5,
    (s) => `WARN the timeline ${state(s, 'timeline.ndjson')} is damaged (it is empty): set aside as timeline.ndjson.damaged-${CLOCK_MS} and rebuilt from the run files`],
  ['timeline.ndjson', 'a garbage first line', (s) => damageLine(state(s, 'timeline.ndjson'), 0), 5,
    (s) => `WARN the timeline ${state(s, 'timeline.ndjson')} is damaged (line 1 is not a journal line): set aside as timeline.ndjson.damaged-${CLOCK_MS} and rebuilt from the run files`],
  ['timeline.ndjson', 'a garbage second line', (s) => damageLine(state(s, 'timeline.ndjson'), 1), 5,
    (s) => `WARN the timeline ${state(s, 'timeline.ndjson')} is damaged (line 2 is not a journal line): set aside as timeline.ndjson.damaged-${CLOCK_MS} and rebuilt from the run files`],
  ['runs.json', '0 bytes', (s) => fs.writeFileSync(state(s, 'runs.json'), ''), 5,
    (s) => `WARN run list ${state(s, 'runs.json')} is damaged (not a run list); the runs are found again from the run files and the timeline`],
  ['runs.json', 'garbage', (s) => fs.writeFileSync(state(s, 'runs.json'), 'xx garbage\n'), 5,
    (s) => `WARN run list ${state(s, 'runs.json')} is damaged (not a run list); the runs are found again from the run files and the timeline`],
  ['runs.json', 'truncated', (s) => truncate(state(s, 'runs.json')), 5,
    (s) => `WARN run list ${state(s, 'runs.json')} is damaged (not a run list); the runs are found again from the run files and the timeline`],
  ['site-seq.json', '0 bytes (snapshot kept)', (s) => fs.writeFileSync(state(s, 'site-seq.json'), ''), 5,
    (s) => `WARN the site seq record ${state(s, 'site-seq.json')} is damaged (empty)`],
  ['site-seq.json', '0 bytes and the snapshot 0 bytes', (s) => {
    fs.writeFileSync(state(s, 'site-seq.json'), '');
    fs.writeFileSync(state(s, 'snapshot.json'), '');
  }, CLOCK_MS + 1, (s) => `WARN ${state(s, 'site-seq.json')} is damaged and no snapshot gives the site seq reached: day files moved away ` +
    `cannot be told from none (the files hold seqs up to 4); the site seq continues after ${CLOCK_MS} (the clock in ms since 1970) so that no seq is given twice`],
  ['site-seq.json', 'garbage and the snapshot removed', (s) => {
    fs.writeFileSync(state(s, 'site-seq.json'), '{"site');
    fs.rmSync(state(s, 'snapshot.json'));
  }, CLOCK_MS + 1, (s) => `WARN the site seq record ${state(s, 'site-seq.json')} is damaged (not {"site_seq": N})`],
];

// what /status says of each damaged state file (a snapshot's reason is JSON.parse's message: its start is checked)
const DAMAGE: Record<string, string> = {
  'timeline.ndjson': `: set aside as timeline.ndjson.damaged-${CLOCK_MS} and rebuilt from the run files`,
  'runs.json': 'not a run list: the runs are found again from the run files and the timeline',
  'site-seq.json': 'not {"site_seq": N}: the site seq continues after ',
  'snapshot.json': 'is not valid JSON',
};

function damageLine(file: string, index: number): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines[index] = 'xx garbage';
  fs.writeFileSync(file, lines.join('\n'));
}

function truncate(file: string): void {
  const text = fs.readFileSync(file);
  fs.writeFileSync(file, text.subarray(0, text.length - 5));
}

const ids = (answer: { json: any }) => answer.json.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`);

async function record(d: TestDaemon, clock: ManualClock): Promise<void> {
  const post = async (type: string) => {
    clock.advance(1000);
    assert.is((await postEvent(d.url, { type, data: 1 })).status, 200);
  };
  await post('a');
  await post('a');
  clock.advance(1000);
  assert.is((await request(d.url, '/run/start', { body: { run_dir: 'runs/PAN001_seq1', run_id: null, meta: {} } })).json.run_id, '001');
  await post('cam');
  await post('cam');
  await request(d.url, '/run/stop', { method: 'POST' });
  await post('a');
  await post('a');
}

for (const [file, damage, apply, nextSeq, warning] of ROWS) {
  test(`${file} ${damage}: named in the log, every event served, seq ${nextSeq === 5 ? 5 : 'after the clock'}, run id 002`, async () => {
    const siteDir = tempDir();
    const clock = new ManualClock(NOW);
    let d = await startTestDaemon({ siteDir, clock });
    try {
      await record(d, clock);
    } finally {
      await d.close();
    }
    apply(siteDir);
    clock.advance(1000);
    d = await startTestDaemon({ siteDir, clock });
    try {
      assert.ok(d.logs.some((l) => l.endsWith(warning(siteDir))), d.logs.join('\n'));
      assert.equal(ids(await request(d.url, '/history')), RECORDED);
      assert.equal(ids(await request(d.url, '/history?run=001')), ['001:1', '001:2']);
      assert.equal(ids(await request(d.url, '/history?cursor=site:2')), RECORDED.slice(2));
      const damaged = (await request(d.url, '/status')).json.damaged.map((e: { file: string; reason: string }) => {
        const name = path.basename(e.file);
        assert.is(e.file, state(siteDir, name));
        const clock = nextSeq > 5 && name === 'site-seq.json';
        return [name, e.reason.includes(DAMAGE[name]!) && e.reason.endsWith(clock ? 'the clock in ms since 1970 (no snapshot gives it)' : '')];
      });
      assert.equal(damaged, [...(damage.includes('the snapshot 0 bytes') ? [['snapshot.json', true]] : []), [file, true]]);
      assert.is((await postEvent(d.url, { type: 'a', data: 2 })).json.seq, nextSeq);
      const next = await request(d.url, '/run/start', { body: { run_dir: 'runs/PAN001_seq2', run_id: null, meta: {} } });
      assert.is(next.json.run_id, '002');
      assert.is((await postEvent(d.url, { type: 'cam', data: 2 })).json.seq, 1);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test('runs.json damaged and the last run recorded nothing: its id, known only to the timeline, is not derived again', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  let d = await startTestDaemon({ siteDir, clock });
  try {
    await record(d, clock);
    const empty = await request(d.url, '/run/start', { body: { run_dir: 'runs/PAN001_seq2', run_id: null, meta: {} } });
    assert.is(empty.json.run_id, '002');
    await request(d.url, '/run/stop', { method: 'POST' });
  } finally {
    await d.close();
  }
  fs.writeFileSync(state(siteDir, 'runs.json'), '');
  d = await startTestDaemon({ siteDir, clock });
  try {
    const next = await request(d.url, '/run/start', { body: { run_dir: 'runs/PAN001_seq3', run_id: null, meta: {} } });
    assert.is(next.json.run_id, '003');
    assert.equal(ids(await request(d.url, '/history')), RECORDED);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('timeline.ndjson damaged while a run is active: the run resumes after the rebuild, its events and seqs go on', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  let d = await startTestDaemon({ siteDir, clock });
  try {
    await record(d, clock);
    clock.advance(1000);
    await request(d.url, '/run/start', { body: { run_id: 'r2' } });
    clock.advance(1000);
    assert.is((await postEvent(d.url, { type: 'cam', data: 1 })).json.seq, 1);
  } finally {
    await d.close();
  }
  damageLine(state(siteDir, 'timeline.ndjson'), 1);
  d = await startTestDaemon({ siteDir, clock });
  try {
    assert.equal((await request(d.url, '/run')).json.run_id, 'r2');
    clock.advance(1000);
    assert.is((await postEvent(d.url, { type: 'cam', data: 2 })).json.seq, 2);
    assert.equal(ids(await request(d.url, '/history')), [...RECORDED, 'r2:1', 'r2:2']);
    await request(d.url, '/run/stop', { method: 'POST' });
    assert.is((await postEvent(d.url, { type: 'a', data: 3 })).json.seq, 5);
    assert.equal(ids(await request(d.url, '/history?cursor=run:r2:1')), ['r2:2', 'site:5']);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('held-site.ndjson with a line that is not a seq: named in the log; a torn last line is not read as a seq', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  let d = await startTestDaemon({ siteDir, clock });
  await d.close();
  fs.writeFileSync(state(siteDir, 'held-site.ndjson'), '3\nxx garbage\n1');
  d = await startTestDaemon({ siteDir, clock });
  try {
    assert.equal(d.logs.filter((l) => l.includes('held-site.ndjson')), [`${NOW} WARN held seqs ${state(siteDir, 'held-site.ndjson')} is damaged ` +
      '(1 line(s) not a seq); readings posted with make_current false may become current']);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

// [how active-run.json is lost, the warning besides the run's close]
const LOST: [string, (file: string) => void, string | undefined][] = [
  ['removed', (file) => fs.rmSync(file), undefined],
  ['removed with the snapshot', (file) => {
    fs.rmSync(file);
    fs.rmSync(path.join(path.dirname(file), 'snapshot.json'));
  }, undefined],
  ['0 bytes', (file) => fs.writeFileSync(file, ''), 'is damaged (not a whole run record); starting with no active run'],
  ['garbage', (file) => fs.writeFileSync(file, '{"record":'), 'is damaged (not a whole run record); starting with no active run'],
];

for (const [how, lose, warned] of LOST) test(`active-run.json ${how} after kill -9: the run closes after its ephemeral seq, which stays current; a restart of it continues`, () => withRestarts(async (site) => {
  let d = await site.start();
  await request(d.url, '/run/start', { body: { run_id: 'r9' } });
  assert.is((await postEvent(d.url, { type: 'cam', data: 1 })).json.seq, 1);
  assert.is((await postEvent(d.url, { type: 'eph', data: 2, store_permanently: false })).json.seq, 2);
  await site.kill9();
  lose(state(site.dir, 'active-run.json'));
  d = await site.start();
  if (warned) assert.ok(d.stderr().includes(`WARN active run record ${state(site.dir, 'active-run.json')} ${warned}`), d.stderr());
  const status = (await request(d.url, '/status')).json;
  assert.equal(status.damaged, warned ? [{ file: state(site.dir, 'active-run.json'), reason: 'not a whole run record: started with no active run' }] : undefined);
  assert.ok(d.stderr().includes('WARN run r9 was active but has no active run record (active-run.json lost?): it is closed at seq 2; ' +
    'what it recorded stays in /history and /current'), d.stderr());
  const current = (await request(d.url, "/current")).json.current;
  assert.equal([current.cam?.seq, current.eph?.seq, current.eph?.data], [1, 2, 2]);
  await request(d.url, '/run/start', { body: { run_id: 'r9' } });
  assert.is((await postEvent(d.url, { type: 'cam', data: 3 })).json.seq, 3);
}));

test.run();
