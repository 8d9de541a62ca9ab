import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { request } from './helpers/http.js';
import { withRestarts } from './helpers/restart.js';
import { tierFiles } from './helpers/rollup-brute.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The rollup tiers on disk: the same answers after --retain deleted the raw files (and after a
// rebuild then), kill -9 during a rebuild or while events arrive, then a restart: the same bytes
// as a rebuild from the files; a damaged checkpoint is rebuilt, and says so.

const QUERIES = ['step=1m&from=2026-03-02T00:00:00Z&to=2026-03-03T00:00:00Z', 'step=1h&from=2026-03-01T00:00:00Z&to=2026-03-20T00:00:00Z',
  'step=night&from=2026-03-01T00:00:00Z&to=2026-03-20T00:00:00Z'];
const DAY = 86_400_000;

/** Two lists of answers equal, a difference named by its query and place (the answers are long). */
function sameAnswers(actual: string[], expected: string[], what: string): void {
  QUERIES.forEach((q, i) => {
    const a = actual[i]!;
    const e = expected[i]!;
    let at = 0;
    while (at < a.length && a[at] === e[at]) at++;
    assert.ok(a === e, `${what}: ${q} differs at ${at}: ${JSON.stringify(a.slice(Math.max(0, at - 200), at + 200))} vs ${JSON.stringify(e.slice(Math.max(0, at - 200), at + 200))}`);
  });
}

async function answers(url: string): Promise<string[]> {
  const out = [];
  for (const q of QUERIES) {
    const answer = await request(url, `/history?type=weather&${q}`);
    assert.is(answer.status, 200, answer.text);
    out.push(answer.text);
  }
  return out;
}

/** Site day files of `days` days from 2026-03-01 noon UTC, one weather line every `everyMs`. */
function writeSiteDays(dir: string, days: number, everyMs: number): void {
  let seq = 0;
  for (let d = 0; d < days; d++) {
    const start = Date.parse('2026-03-01T12:00:00Z') + d * DAY;
    const key = new Date(start).toISOString().slice(0, 10).replaceAll('-', '');
    const lines = [];
    for (let at = start; at < start + DAY; at += everyMs) {
      seq++;
      lines.push(`{"seq":${seq},"ts":"${new Date(at).toISOString()}","type":"weather","data":{"t":${(seq % 997) / 10},"h":${seq % 89}},"meta":{}}\n`);
    }
    fs.writeFileSync(path.join(dir, `site_${key}.ndjson`), lines.join(''));
  }
}

test('--retain deletes the raw files: the rollups answer the same, and a rebuild keeps the buckets of the deleted days', async () => {
  const dir = tempDir();
  const clock = new ManualClock('2026-03-01T00:00:00Z');
  const env = { TZ: 'UTC' };
  let d = await startTestDaemon({ siteDir: dir, clock, env });
  try {
    for (let day = 0; day < 12; day++) {
      const lines = [];
      for (let i = 0; i < 288; i++) lines.push(`{"type":"weather","ts":"${new Date(Date.parse('2026-03-01T00:00:00Z') + day * DAY + i * 300_000).toISOString()}","data":{"t":${(day * 288 + i) % 53}}}`);
      clock.set(Date.parse('2026-03-01T00:00:00Z') + day * DAY);
      assert.is((await request(d.url, '/events', { body: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
    }
    // the last bucket is answered as of the clock: the clock where it stays from now on
    clock.set('2026-05-01T00:00:00Z');
    const before = await answers(d.url);
    await d.close();
    // the first ten days' files were last written long ago
    const old = fs.readdirSync(dir).filter((n) => n.startsWith('site_') && n < 'site_20260310');
    assert.is(old.length, 10);
    for (const name of old) fs.utimesSync(path.join(dir, name), new Date('2026-03-10T00:00:00Z'), new Date('2026-03-10T00:00:00Z'));
    d = await startTestDaemon({ siteDir: dir, clock, env, flags: { retain: '30d' } });
    const report = await d.daemon.housekeeping!.runOnce();
    assert.equal(report.deleted.map((f) => path.basename(f)).sort(), old);
    sameAnswers(await answers(d.url), before, 'answers');
    const files = tierFiles(dir);
    assert.is((await request(d.url, '/rollups/rebuild', { method: 'POST' })).status, 200);
    sameAnswers(await answers(d.url), before, 'answers');
    assert.ok(JSON.stringify(tierFiles(dir)) === JSON.stringify(files), 'the tier files are the bytes they were');
  } finally {
    await d.close();
    removeDir(dir);
  }
});

async function rebuildingNow(dir: string): Promise<true> {
  return waitFor('a rebuild to be under way', () => (fs.existsSync(path.join(dir, '.meridian', 'rollups.rebuild', '1m')) ? true : undefined), 60_000);
}

test('kill -9 during the first build and during a rebuild, then a restart: the same bytes and answers as a build left alone', async () => {
  await withRestarts(async (site) => {
    writeSiteDays(site.dir, 8, 2000);
    // the first start on recorded files builds the rollups in the background: killed while it runs
    let d: ChildDaemon = await site.start();
    await rebuildingNow(site.dir);
    await site.kill9();
    d = await site.start();
    await waitFor('the build to end', () => (/rollups built from the recorded files in/.test(d.stderr()) ? true : undefined), 120_000);
    const built = tierFiles(site.dir);
    const expected = await answers(d.url);
    // a rebuild asked for, killed while it runs: the next start has the rollups as they were
    const asked = request(d.url, '/rollups/rebuild', { method: 'POST' }).catch(() => undefined);
    await rebuildingNow(site.dir);
    await site.kill9();
    await asked;
    d = await site.start();
    assert.not.ok(fs.existsSync(path.join(site.dir, '.meridian', 'rollups.rebuild')));
    sameAnswers(await answers(d.url), expected, 'answers');
    assert.ok(JSON.stringify(tierFiles(site.dir)) === JSON.stringify(built), 'the tier files are the bytes built');
    assert.is((await request(d.url, '/rollups/rebuild', { method: 'POST' })).text, '{"rebuilt":true,"late":0}');
    assert.ok(JSON.stringify(tierFiles(site.dir)) === JSON.stringify(built), 'the tier files are the bytes built');
  });
});

test('kill -9 while events arrive, then a restart: the tiers are folded on from the checkpoint, the bytes a rebuild writes', async () => {
  await withRestarts(async (site) => {
    let d = await site.start();
    let at = Date.parse('2026-03-02T00:00:00Z');
    const batch = (n: number) => {
      const lines = [];
      for (let i = 0; i < n; i++, at += 7_000) lines.push(`{"type":"weather","ts":"${new Date(at).toISOString()}","data":{"t":${(at / 7000) % 101},"h":1.0}}`);
      return request(d.url, '/events', { body: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
    };
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 20; i++) assert.is((await batch(500)).status, 200);
      // a checkpoint has been written (every 2 s): events after it are folded again at the restart
      await waitFor('a checkpoint', () => (fs.existsSync(path.join(site.dir, '.meridian', 'rollups', 'checkpoint.json')) ? true : undefined));
      for (let i = 0; i < 5; i++) assert.is((await batch(300)).status, 200);
      await site.kill9();
      d = await site.start();
    }
    const live = await answers(d.url);
    assert.is(JSON.parse(live[1]!).buckets.reduce((n: number, b: { fields: { 'data.t': { count: number } } }) => n + b.fields['data.t'].count, 0), 3 * 11_500);
    await site.stop();
    const files = tierFiles(site.dir);
    d = await site.start();
    sameAnswers(await answers(d.url), live, 'answers');
    assert.is((await request(d.url, '/rollups/rebuild', { method: 'POST' })).status, 200);
    assert.ok(JSON.stringify(tierFiles(site.dir)) === JSON.stringify(files), 'the tier files are the bytes a rebuild writes');
    sameAnswers(await answers(d.url), live, 'answers');
  });
});

test('a damaged checkpoint: the log says so, the rollups are built again from the files; lines after the checkpoint are cut off', async () => {
  await withRestarts(async (site) => {
    writeSiteDays(site.dir, 2, 60_000);
    let d = await site.start();
    await waitFor('the build to end', () => (/rollups built from the recorded files in/.test(d.stderr()) ? true : undefined));
    const expected = await answers(d.url);
    await site.stop();
    fs.writeFileSync(path.join(site.dir, '.meridian', 'rollups', 'checkpoint.json'), '{"version":1,"cur');
    d = await site.start();
    await waitFor('the build to end', () => (/rollups built from the recorded files in/.test(d.stderr()) ? true : undefined));
    assert.match(d.stderr(), 'WARN the rollup checkpoint is damaged (it is not valid JSON); rebuilding the rollups from the recorded files');
    sameAnswers(await answers(d.url), expected, 'answers');
    // a crash between appending buckets and writing the checkpoint leaves lines it does not
    // count (here: a bucket written again and a torn line): they are cut off at the next start
    await site.stop();
    const file = path.join(site.dir, '.meridian', 'rollups', '1h', 'weather.ndjson');
    const lines = fs.readFileSync(file, 'utf8');
    fs.appendFileSync(file, `${lines.split('\n')[0]}\n{"s":17`);
    d = await site.start();
    assert.is(fs.readFileSync(file, 'utf8'), lines);
    sameAnswers(await answers(d.url), expected, 'answers');
  });
});

test('a new site directory: the first flush writes the checkpoint and the daemon goes on (it once died of it)', async () => {
  await withRestarts(async (site) => {
    const d = await site.start();
    assert.is((await request(d.url, '/event', { body: { type: 'weather', data: { t: 1 } } })).status, 200);
    await waitFor('a checkpoint', () => (fs.existsSync(path.join(site.dir, '.meridian', 'rollups', 'checkpoint.json')) ? true : undefined));
    assert.is((await request(d.url, '/health')).status, 200);
    assert.is(JSON.parse((await request(d.url, '/history?type=weather&step=1m')).text).buckets.length, 1);
  });
});

test('a burst of more events than the queue holds: they are read back from the files; the answers and bytes of a rebuild', async () => {
  const dir = tempDir();
  const d = await startTestDaemon({ siteDir: dir, env: { TZ: 'UTC' } });
  try {
    const at0 = Date.parse('2026-03-02T00:00:00Z');
    // one ts for all: the batches are recorded in any order, and none of them is late
    const batch = (b: number) => Array.from({ length: 10_000 }, (_, i) => `{"type":"weather","ts":"${new Date(at0).toISOString()}","data":{"t":${(b * 10_000 + i) % 97}}}`).join('\n');
    // sent at once: no turn of the fold's timer between them
    const answers8 = await Promise.all(Array.from({ length: 8 }, (_, b) => request(d.url, '/events', { body: batch(b), headers: { 'content-type': 'application/x-ndjson' } })));
    assert.equal(answers8.map((a) => a.status), Array(8).fill(200));
    assert.ok(d.logs.some((l) => l.includes('rollups: more than 50000 events wait to be folded')), 'the queue overflowed');
    const live = await answers(d.url);
    const hour = JSON.parse(live[1]!) as { buckets: { fields: { 'data.t': { count: number } } }[] };
    assert.is(hour.buckets.reduce((n, b) => n + b.fields['data.t'].count, 0), 80_000);
    assert.is((await request(d.url, '/rollups/rebuild', { method: 'POST' })).text, '{"rebuilt":true,"late":0}');
    sameAnswers(await answers(d.url), live, 'answers');
  } finally {
    await d.close();
    removeDir(dir);
  }
});

test.run();
