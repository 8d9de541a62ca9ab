import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Where a seq went cannot be known from what is left on disk (hostile tester D, issue 23,
// findings N7 and N8): rather than give a seq again, it continues after the clock in ms since 1970.

const NOW = '2026-03-17T20:00:00.000Z';
const NOW_MS = Date.parse(NOW);
const RUN_R7 = { run_dir: 'r7', run_id: 'r7', meta: { run_id: 'r7' }, started_at: '2026-03-17T10:00:00.000Z' };
const start = (siteSeq: number) => ({ event: 'run_start', at: RUN_R7.started_at, run_id: 'r7', file: 'r7/telemetry.ndjson', site_seq: siteSeq, run_seq: 0 });
const stop = (siteSeq: number, runSeq: number) => ({ event: 'run_stop', at: '2026-03-17T11:00:00.000Z', run_id: 'r7', file: 'r7/telemetry.ndjson', site_seq: siteSeq, run_seq: runSeq });
const dayLines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) =>
  `${JSON.stringify({ seq: from + i, ts: '2026-03-17T12:00:00.000Z', type: 'a', data: from + i, meta: {} })}\n`).join('');

function site(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const lines = (...records: object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

// [name, the site directory's files, the seq the next site event gets, the WARN said about it ('' none)]
const SITE_ROWS: [string, Record<string, string>, number, string][] = [
  ['day files, snapshot and site-seq.json gone, the timeline journals seq 3', {
    '.meridian/timeline.ndjson': lines(start(3), stop(3, 2)),
  }, NOW_MS + 1, 'the site files hold seqs up to 0, but the timeline journals site seq 3 and neither the snapshot nor SITE/.meridian/site-seq.json ' +
    `says how far the seq went after it (day files moved away?); the site seq continues after ${NOW_MS} (the clock in ms since 1970) so that no seq is given twice`],
  ['day files gone, site-seq.json says 9 past the timeline\'s 3', {
    '.meridian/timeline.ndjson': lines(start(3), stop(3, 2)), '.meridian/site-seq.json': '{"site_seq":9}',
  }, 10, 'the site files hold seqs up to 0, but seq 9 was recorded (day files moved away?); the site seq continues after 9'],
  ['the day files kept past the timeline\'s last point, nothing else under .meridian/', {
    '.meridian/timeline.ndjson': lines(start(3), stop(3, 2)), 'site_20260317.ndjson': dayLines(1, 5),
  }, 6, ''],
];

for (const [name, files, next, said] of SITE_ROWS) {
  test(`site seq, ${name}: the next seq is ${next === NOW_MS + 1 ? 'after the clock' : next}`, async () => {
    const siteDir = site(files);
    const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
    try {
      assert.is((await postEvent(d.url, { type: 'b', data: 1 })).json.seq, next);
      const warned = d.logs.filter((l) => l.includes(' WARN the site files hold')).map((l) => l.slice(30).replaceAll(siteDir, 'SITE'));
      assert.equal(warned, said ? [said] : []);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

// [name, whether the timeline is lost before the run id starts again]
const RUN_ROWS: [string, boolean][] = [['the timeline kept', false], ['the timeline lost too', true]];

for (const [name, timelineLost] of RUN_ROWS) {
  test(`a run whose end is unknown, started again on its own missing directory (${name}): its seq continues after the clock`, async () => {
    // r7 was active when the daemon died, before any snapshot marked it, and its directory is away
    const siteDir = site({
      '.meridian/timeline.ndjson': lines(start(0)),
      '.meridian/active-run.json': JSON.stringify({ record: RUN_R7, record_json: JSON.stringify(RUN_R7), start_offset: 0, start_seq: 0 }),
    });
    const clock = new ManualClock(NOW);
    let d = await startTestDaemon({ siteDir, clock });
    try {
      assert.equal((await request(d.url, '/status')).json.suspended_run, { run_id: 'r7', run_dir: path.join(siteDir, 'r7'), reason: 'ENOENT' });
      assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
      await d.close();
      if (timelineLost) fs.rmSync(path.join(siteDir, '.meridian', 'timeline.ndjson'));
      clock.advance(60_000);
      d = await startTestDaemon({ siteDir, clock });
      assert.is((await request(d.url, '/run/start', { body: { run_id: 'r7' } })).status, 200);
      assert.is((await postEvent(d.url, { type: "cam", data: 1 })).json.seq, NOW_MS + 60_000 + 1);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test.run();
