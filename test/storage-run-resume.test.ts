import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { withRestarts } from './helpers/restart.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A run active when the daemon went down that cannot simply resume (hostile test C, issue 23,
// finding 3): its file found only as .gz resumes from it; its directory away, the run is closed
// with the last seq the state files knew, its events are served once the file is back, and a
// later start of the same run id never gives one of its seqs again.

const NOW = '2026-03-17T20:00:00.000Z';
const MISSING = 'missing (ENOENT): the run file was moved away or deleted; its events are not served';

async function posts(d: TestDaemon, clock: ManualClock, type: string, n: number): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = 0; i < n; i++) {
    clock.advance(1000);
    const answer = await postEvent(d.url, { type, data: i });
    assert.is(answer.status, 200);
    seqs.push(answer.json.seq);
  }
  return seqs;
}

async function seqsOf(d: TestDaemon, query: string): Promise<{ seqs: string[]; damaged: unknown }> {
  const body = (await request(d.url, `/history?${query}`)).json;
  return { seqs: body.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`), damaged: body.damaged };
}

test('an active run whose file was gzipped while the daemon was down resumes from it: no event lost, seq continues', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  let d = await startTestDaemon({ siteDir, clock });
  const file = path.join(siteDir, 'r7', 'telemetry.ndjson');
  try {
    await request(d.url, '/run/start', { body: { run_id: 'r7' } });
    assert.equal(await posts(d, clock, 'cam', 3), [1, 2, 3]);
    await d.close(); // the run stays active
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(fs.readFileSync(file)));
    fs.rmSync(file);
    d = await startTestDaemon({ siteDir, clock });
    assert.equal(d.logs.filter((l) => / (WARN|ERROR) /.test(l)).map((l) => l.slice(25)),
      [`WARN ${file} was found only compressed: decompressed so that run r7 resumes`]);
    assert.is((await request(d.url, '/run')).json.run_id, 'r7');
    assert.equal(await posts(d, clock, 'cam', 1), [4]);
    assert.equal(await seqsOf(d, 'run=r7'), { seqs: ['r7:1', 'r7:2', 'r7:3', 'r7:4'], damaged: undefined });
    assert.is((await request(d.url, '/status')).json.suspended_run, null);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('an active run whose directory is away at start-up keeps its events: closed at its last seq, named missing, served when back, never seq 1 again', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  let d = await startTestDaemon({ siteDir, clock });
  const runDir = path.join(siteDir, 'r7');
  const away = path.join(siteDir, 'away');
  const file = path.join(runDir, 'telemetry.ndjson');
  try {
    await posts(d, clock, 'a', 1);
    await request(d.url, '/run/start', { body: { run_id: 'r7' } });
    await posts(d, clock, 'cam', 3);
    await d.close();
    fs.renameSync(runDir, away);
    d = await startTestDaemon({ siteDir, clock });
    assert.equal((await request(d.url, '/status')).json.suspended_run, { run_id: 'r7', run_dir: runDir, reason: 'ENOENT' });
    assert.equal(await posts(d, clock, 'a', 1), [2]);
    assert.equal(await seqsOf(d, ''), { seqs: ['site:1', 'site:2'], damaged: [{ file, reason: MISSING }] });
    assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
    await d.close();
    const timeline = fs.readFileSync(path.join(siteDir, '.meridian', 'timeline.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(timeline.map((l) => [l.event, l.run_id, l.site_seq, l.run_seq]), [['run_start', 'r7', 1, 0], ['run_stop', 'r7', 1, 3]]);

    // started again while the directory is still away: its seq continues after 3, never 1 again
    d = await startTestDaemon({ siteDir, clock });
    await request(d.url, '/run/start', { body: { run_id: 'r7', run_dir: 'r7b' } });
    assert.equal(await posts(d, clock, 'cam', 2), [4, 5]);
    await request(d.url, '/run/stop', { method: 'POST' });
    await d.close();

    fs.renameSync(away, runDir);
    d = await startTestDaemon({ siteDir, clock });
    assert.equal(await seqsOf(d, ''), { seqs: ['site:1', 'r7:1', 'r7:2', 'r7:3', 'site:2', 'r7:4', 'r7:5'], damaged: undefined });
    assert.is((await request(d.url, '/status')).json.damaged, undefined);
    await request(d.url, '/run/start', { body: { run_id: 'r7' } });
    assert.equal(await posts(d, clock, 'cam', 1), [6]);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('a run killed with an ephemeral reading last and its directory away: its stop says at least that seq, and its end is unknown', () => withRestarts(async (site) => {
  let d = await site.start();
  await request(d.url, '/run/start', { body: { run_id: 'r7' } });
  assert.is((await postEvent(d.url, { type: 'cam', data: 1 })).json.seq, 1);
  assert.is((await postEvent(d.url, { type: 'weather', data: 2, store_permanently: false })).json.seq, 2);
  await site.kill9();
  fs.renameSync(path.join(site.dir, 'r7'), path.join(site.dir, 'away'));
  d = await site.start();
  assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
  const timeline = fs.readFileSync(path.join(site.dir, '.meridian', 'timeline.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(timeline.map((l) => [l.event, l.run_id, l.run_seq, l.end_unknown]), [['run_start', 'r7', 0, undefined], ['run_stop', 'r7', 2, true]]);
  // the file away and the end unknown: the seq continues after the clock in ms since 1970, as the site seq does
  const before = Date.now();
  await request(d.url, '/run/start', { body: { run_id: 'r7', run_dir: 'r7b' } });
  const seq = (await postEvent(d.url, { type: 'cam', data: 3 })).json.seq;
  assert.ok(seq > before && seq <= Date.now() + 1, String(seq));
}));

test('a run killed before any snapshot marked it, its directory away: its end is unknown, its events served when back, no seq given twice', () => withRestarts(async (site) => {
  let d = await site.start();
  await request(d.url, '/run/start', { body: { run_id: 'r7' } });
  for (let i = 1; i <= 3; i++) assert.is((await postEvent(d.url, { type: 'cam', data: i })).json.seq, i);
  await site.kill9();
  fs.renameSync(path.join(site.dir, 'r7'), path.join(site.dir, 'away'));
  d = await site.start();
  assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
  const timeline = fs.readFileSync(path.join(site.dir, '.meridian', 'timeline.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(timeline.map((l) => [l.event, l.run_id, l.run_seq, l.end_unknown]), [['run_start', 'r7', 0, undefined], ['run_stop', 'r7', 0, true]]);
  await site.stop();
  fs.renameSync(path.join(site.dir, 'away'), path.join(site.dir, 'r7'));
  d = await site.start();
  const served = (await request(d.url, '/history?run=r7')).json;
  assert.equal([served.events.map((e: any) => e.seq), served.damaged], [[1, 2, 3], undefined]);
  await request(d.url, '/run/start', { body: { run_id: 'r7' } });
  assert.is((await postEvent(d.url, { type: 'cam', data: 4 })).json.seq, 4);
  await request(d.url, '/run/stop', { method: 'POST' });
  assert.equal((await request(d.url, '/history?run=r7')).json.events.map((e: any) => e.seq), [1, 2, 3, 4], 'each once');
}));

// [a run start with a derived id (finding 6), its run_dir]
const DERIVED: [string, Record<string, unknown>, string][] = [
  ['run_dir alone', { run_dir: 'nn' }, 'nn'],
  ['run_id null, POCS run_dir', { run_id: null, run_dir: 'runs/PAN001_seq1', meta: {} }, 'runs/PAN001_seq1'],
];

for (const [name, body, runDir] of DERIVED) {
  test(`a derived run id on a compressed run directory (${name}): decompressed back, its seq continues`, async () => {
    const siteDir = tempDir();
    const clock = new ManualClock(NOW);
    const file = path.join(siteDir, runDir, 'telemetry.ndjson');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const line = (seq: number) => `${JSON.stringify({ seq, ts: '2026-03-01T00:00:00.000Z', type: 'cam', data: seq, meta: { run_id: '001' } })}\n`;
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(line(1) + line(2)));
    const d = await startTestDaemon({ siteDir, clock });
    try {
      const started = await request(d.url, '/run/start', { body });
      assert.equal([started.status, started.json.run_id, started.json.run_dir], [200, '002', path.join(siteDir, runDir)]);
      assert.equal(await posts(d, clock, 'cam', 1), [3]);
      assert.equal(fs.readdirSync(path.dirname(file)), ['telemetry.ndjson']);
      assert.equal(fs.readFileSync(file, 'utf8').split('\n').slice(0, 2).map((l) => JSON.parse(l).seq), [1, 2]);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test('a run id started again with another run_dir continues its seq: paging, stream resume and ids meet each event once', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  const d = await startTestDaemon({ siteDir, clock });
  try {
    const posted: string[] = [];
    for (const dir of ['a', 'b']) {
      const started = await request(d.url, '/run/start', { body: { run_id: 'n1', run_dir: dir } });
      assert.is(started.status, 200);
      posted.push(...(await posts(d, clock, 'cam', 3)).map((seq) => `n1:${seq}`));
      await request(d.url, '/run/stop', { method: 'POST' });
      posted.push(...(await posts(d, clock, 'a', 2)).map((seq) => `site:${seq}`));
    }
    assert.equal(posted, ['n1:1', 'n1:2', 'n1:3', 'site:1', 'site:2', 'n1:4', 'n1:5', 'n1:6', 'site:3', 'site:4']);
    assert.equal(await seqsOf(d, 'limit=10000'), { seqs: posted, damaged: undefined });
    const paged: string[] = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const page: any = (await request(d.url, `/history?limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json;
      paged.push(...page.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`));
      cursor = page.next_cursor;
    }
    assert.equal(paged, posted);
    const after = (await request(d.url, '/history?cursor=run:n1:2&limit=10000')).json.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`);
    assert.equal(after, posted.slice(2));
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test.run();
