import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import { ManualClock } from './helpers/clock.js';
import { cli } from './helpers/cli.js';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, idsOf, QUICK, sinkStatus, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The site directory moved or copied while the daemon is stopped (issue 23): the runs stay in
// /history and the run goes on at its new place, forwarded whole; the state files under
// `.meridian/` keep the paths inside the site directory relative to it, and read the absolute
// ones of earlier versions at their place now; two daemons on two copies write only their own files.

const NOW = '2026-03-17T20:00:00.000Z';
const STATE = ['timeline.ndjson', 'runs.json', 'active-run.json', 'snapshot.json'];

/** Make the state files look as an earlier version wrote them: every recorded path absolute under `siteDir`. */
function asEarlierVersion(siteDir: string, dropSnapshot: boolean): void {
  const dir = path.join(siteDir, '.meridian');
  const abs = (p: string) => (path.isAbsolute(p) ? p : path.join(siteDir, p));
  const timeline = path.join(dir, 'timeline.ndjson');
  fs.writeFileSync(timeline, fs.readFileSync(timeline, 'utf8').split('\n').filter((l) => l !== '')
    .map((l) => { const o = JSON.parse(l); return `${JSON.stringify({ ...o, file: abs(o.file) })}\n`; }).join(''));
  const runs = JSON.parse(fs.readFileSync(path.join(dir, 'runs.json'), 'utf8'));
  runs.runs = runs.runs.map((r: any) => ({ ...r, run_dir: abs(r.run_dir) }));
  fs.writeFileSync(path.join(dir, 'runs.json'), JSON.stringify(runs));
  const active = JSON.parse(fs.readFileSync(path.join(dir, 'active-run.json'), 'utf8'));
  active.record.run_dir = abs(active.record.run_dir);
  active.record_json = active.record_json.replace(/"run_dir":"[^"]*"/, `"run_dir":${JSON.stringify(active.record.run_dir)}`);
  fs.writeFileSync(path.join(dir, 'active-run.json'), JSON.stringify(active));
  const snapshot = path.join(dir, 'snapshot.json');
  if (dropSnapshot) fs.rmSync(snapshot);
  else fs.writeFileSync(snapshot, fs.readFileSync(snapshot, 'utf8').replace(/"file":"([^"]*)"/g, (_, f) => `"file":${JSON.stringify(abs(f))}`));
}

/** Every path the state files hold (timeline files, run dirs, the active run's, the snapshot marks'). */
function recordedPaths(siteDir: string): string[] {
  const dir = path.join(siteDir, '.meridian');
  const text = STATE.map((name) => fs.readFileSync(path.join(dir, name), 'utf8')).join('\n');
  return [...text.matchAll(/"(?:file|run_dir)":"([^"]*)"/g)].map((m) => m[1]!).sort();
}

// [name, how the records were written, the snapshot dropped too, copy (cp -a) rather than move]
const ROWS: [string, 'this version' | 'earlier version', boolean, boolean][] = [
  ['moved, records of this version', 'this version', false, false],
  ['moved, records of an earlier version (absolute)', 'earlier version', false, false],
  ['moved, absolute records and no snapshot', 'earlier version', true, false],
  ['copied, records of this version', 'this version', false, true],
  ['copied, records of an earlier version (absolute)', 'earlier version', false, true],
];

for (const [name, records, dropSnapshot, copy] of ROWS) {
  test(`site directory ${name}: /history, the run and a sink find everything at the new place`, async () => {
    const parent = tempDir();
    const siteDir = path.join(parent, 'site');
    const moved = path.join(parent, copy ? 'copy' : 'site2');
    const clock = new ManualClock(NOW);
    const post = async (url: string, type: string) => {
      clock.advance(1000);
      assert.is((await postEvent(url, { type, data: 1 })).status, 200);
    };
    const peer = await startPeer();
    await peer.down(); // nothing delivered before the move: the sink's cursor still points into the files
    const forward = sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`);
    let d = await startTestDaemon({ siteDir, clock, forward });
    let before: string;
    try {
      await post(d.url, 'a');
      await request(d.url, '/run/start', { body: { run_id: 'r1' } });
      await post(d.url, 'cam');
      await request(d.url, '/run/stop', { method: 'POST' });
      await post(d.url, 'a');
      await request(d.url, '/run/start', { body: { run_id: 'r2', run_dir: 'nights/r2' } });
      await post(d.url, 'cam');
      before = (await request(d.url, '/history')).text;
    } finally {
      await d.close();
    }
    if (records === 'earlier version') asEarlierVersion(siteDir, dropSnapshot);
    const original = fs.readFileSync(path.join(siteDir, 'nights', 'r2', 'telemetry.ndjson'), 'utf8');
    if (copy) execFileSync('cp', ['-a', siteDir, moved]);
    else fs.renameSync(siteDir, moved);
    await peer.up();
    d = await startTestDaemon({ siteDir: moved, clock, forward });
    try {
      assert.is((await request(d.url, '/history')).text, before);
      const run = (await request(d.url, '/run')).json;
      assert.is(run.run_dir, path.join(moved, 'nights', 'r2'));
      await post(d.url, 'cam');
      const status = await caughtUp(d.url, 'peer');
      assert.equal(idsOf(peer.records).sort(), ['r1:1', 'r2:1', 'r2:2', 'site:1', 'site:2']);
      assert.equal({ state: status.state, skipped: status.skipped }, { state: 'ok', skipped: [] });
      assert.equal((await request(d.url, '/history?run=r2')).json.events.map((e: any) => e.seq), [1, 2]);
      assert.equal(recordedPaths(moved).filter((p) => path.isAbsolute(p)), [], 'every recorded path is relative');
      if (copy) {
        // the copy's daemon wrote its own run file; the original's is as it was
        assert.is(fs.readFileSync(path.join(siteDir, 'nights', 'r2', 'telemetry.ndjson'), 'utf8'), original);
        assert.is(fs.readFileSync(path.join(moved, 'nights', 'r2', 'telemetry.ndjson'), 'utf8').split('\n').length, 3);
      }
    } finally {
      await d.close();
      await peer.down();
      removeDir(parent);
    }
  });
}


test('a run file moved away: /history, /status, the log (once) and telemetry history name it missing; put back, it is served again', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  let d = await startTestDaemon({ siteDir, clock });
  const post = async (type: string) => {
    clock.advance(1000);
    assert.is((await postEvent(d.url, { type, data: 1 })).status, 200);
  };
  let site: string[];
  try {
    await post('a');
    await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    await post('cam');
    await post('cam');
    await request(d.url, '/run/stop', { method: 'POST' });
    await post('a');
    site = (await request(d.url, '/history?run=site')).json.events.map((e: any) => JSON.stringify(e));
  } finally {
    await d.close();
  }
  const file = path.join(siteDir, 'r1', 'telemetry.ndjson');
  const away = path.join(siteDir, 'away.ndjson');
  fs.renameSync(file, away);
  const reason = 'missing (ENOENT): the run file was moved away or deleted; its events are not served';
  d = await startTestDaemon({ siteDir, clock });
  try {
    const history = await request(d.url, '/history');
    assert.is(history.text, `{"events":[${site.join(',')}],"next_cursor":null,"damaged":${JSON.stringify([{ file, reason }])}}`);
    assert.equal((await request(d.url, '/history?run=r1')).json, { events: [], next_cursor: null, damaged: [{ file, reason }] });
    assert.equal((await request(d.url, '/status')).json.damaged, [{ file, reason }]);
    assert.equal(d.logs.filter((l) => l.includes(file)).map((l) => l.slice(25)), [`ERROR ${file} is ${reason}`]);
    const stream = new SseReader(d.url, '/stream?since=site:0');
    try {
      await stream.until('the live marker', () => stream.named('live').length === 1);
      assert.equal(stream.named('replay').map((f) => f.id), ['site:1', 'site:2']);
      assert.equal(stream.data('live'), [{ cursor: 'site:2', replayed: 2, damaged: [{ file, reason }] }]);
    } finally {
      stream.close();
    }
    const cliRun = await cli(['history', 'cam', '--json', '--host', '127.0.0.1', '--port', String(d.port)]);
    assert.equal(cliRun, { code: 1, stdout: '', stderr: `telemetry: missing: ${file}: (ENOENT): the run file was moved away or deleted; its events are not served\n` });
    fs.renameSync(away, file);
    const back = await request(d.url, '/history?run=r1');
    assert.equal([back.json.events.map((e: any) => e.seq), back.json.damaged], [[1, 2], undefined]);
    assert.is((await request(d.url, '/status')).json.damaged, undefined);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

// [name, what is removed while the daemon is stopped with run r1 active]
// (a snapshot from before the run start put back: a crash before the next snapshot)
const LOST: [string, string[], boolean][] = [
  ['only active-run.json lost', ['.meridian/active-run.json'], false],
  ['only active-run.json lost after a crash', ['.meridian/active-run.json'], true],
  ['all of .meridian/ lost', ['.meridian'], false],
];

for (const [name, lost, crash] of LOST) {
  test(`${name} while a run is active: the run is closed, its readings stay in /current and /history`, async () => {
    const siteDir = tempDir();
    const clock = new ManualClock(NOW);
    let d = await startTestDaemon({ siteDir, clock });
    const post = async (type: string) => {
      clock.advance(1000);
      assert.is((await postEvent(d.url, { type, data: 1 })).status, 200);
    };
    let current: string;
    let history: string;
    try {
      await post('a');
      await d.daemon.store.snapshot();
      const snapshot = path.join(siteDir, '.meridian', 'snapshot.json');
      fs.copyFileSync(snapshot, `${snapshot}.before`);
      await request(d.url, '/run/start', { body: { run_id: 'r1' } });
      await post('cam');
      current = (await request(d.url, '/current')).text;
      history = (await request(d.url, '/history')).text;
    } finally {
      await d.close();
    }
    const snapshot = path.join(siteDir, '.meridian', 'snapshot.json');
    if (crash) fs.renameSync(`${snapshot}.before`, snapshot);
    for (const file of lost) fs.rmSync(path.join(siteDir, file), { recursive: true });
    d = await startTestDaemon({ siteDir, clock });
    try {
      assert.is((await request(d.url, '/current')).text, current);
      assert.is((await request(d.url, '/history')).text, history);
      assert.is((await request(d.url, '/run')).status, 404);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

const dayLine = (seq: number, day: string) => JSON.stringify({ seq, ts: `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}T00:00:00.000Z`, type: 'a', data: seq, meta: {} });
const dayLines = (day: string, from: number, to: number) => Buffer.from(Array.from({ length: to - from + 1 }, (_, i) => `${dayLine(from + i, day)}\n`).join(''));
const NOW_MS = Date.parse(NOW);

// [name, the site files (and what is kept of .meridian/), the seq the next event gets, whether the log says the seq cannot be known]
const SEQ_ROWS: [string, () => Record<string, Buffer>, number, boolean][] = [
  ['a whole .gz', () => ({ 'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), encodeMember(dayLines('20260301', 3, 4))]) }), 5, false],
  ['a .gz truncated in its last member', () => {
    const b = encodeMember(dayLines('20260301', 3, 4));
    return { 'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), b.subarray(0, 30)]) };
  }, NOW_MS + 1, true],
  ['a .gz truncated to nothing readable', () => ({ 'site_20260301.ndjson.gz': encodeMember(dayLines('20260301', 1, 2)).subarray(0, 30) }), NOW_MS + 1, true],
  ['a truncated .gz and site-seq.json kept (seq 4)', () => ({
    'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), encodeMember(dayLines('20260301', 3, 4)).subarray(0, 30)]),
    '.meridian/site-seq.json': Buffer.from('{"site_seq":4}'),
  }), 5, false],
  ['a truncated .gz and a site-seq.json older than it (seq 1)', () => ({
    'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), encodeMember(dayLines('20260301', 3, 4)).subarray(0, 30)]),
    '.meridian/site-seq.json': Buffer.from('{"site_seq":1}'),
  }), NOW_MS + 1, true],
  ['a truncated .gz followed by a later day', () => ({
    'site_20260301.ndjson.gz': Buffer.concat([encodeMember(dayLines('20260301', 1, 2)), encodeMember(dayLines('20260301', 3, 4)).subarray(0, 30)]),
    'site_20260302.ndjson': dayLines('20260302', 5, 6),
  }), 7, false],
];

for (const [name, files, next, unknown] of SEQ_ROWS) {
  test(`.meridian/ lost beside ${name}: the site seq never goes back (the next seq: ${next})`, async () => {
    const siteDir = tempDir();
    for (const [file, bytes] of Object.entries(files())) {
      fs.mkdirSync(path.dirname(path.join(siteDir, file)), { recursive: true });
      fs.writeFileSync(path.join(siteDir, file), bytes);
    }
    const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
    try {
      assert.is((await postEvent(d.url, { type: 'b', data: 1 })).json.seq, next);
      const said = d.logs.filter((l) => l.includes('seqs past its damage cannot be known'));
      assert.equal(said.map((l) => l.slice(25)), unknown ? [`WARN ${path.join(siteDir, 'site_20260301.ndjson.gz')} is damaged and holds the highest seq read ` +
        `(${name.includes('nothing') ? 0 : 2}): seqs past its damage cannot be known; the site seq continues after ${NOW_MS} (the clock in ms since 1970) so that no seq is given twice`] : []);
    } finally {
      await d.close();
    }
    // a restart keeps it: the seq goes on from what the new event's file holds
    const again = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
    try {
      assert.is((await postEvent(again.url, { type: 'b', data: 2 })).json.seq, next + 1);
    } finally {
      await again.close();
      removeDir(siteDir);
    }
  });
}

test('a run file moved away before a sink delivered it: the sink says what it could not send (skipped), never ok with lag 0', async () => {
  const peer = await startPeer();
  await peer.down();
  const siteDir = tempDir();
  const forward = sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`);
  let d = await startTestDaemon({ siteDir, forward });
  try {
    await postEvent(d.url, { type: 'a', data: 1 });
    await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    await postEvent(d.url, { type: 'cam', data: 1 });
    await request(d.url, '/run/stop', { method: 'POST' });
    await postEvent(d.url, { type: 'a', data: 2 });
  } finally {
    await d.close();
  }
  const file = path.join(siteDir, 'r1', 'telemetry.ndjson');
  fs.renameSync(file, path.join(siteDir, 'away.ndjson'));
  await peer.up();
  d = await startTestDaemon({ siteDir, forward });
  try {
    const status = await waitFor('the sink to pass the run', async () => {
      const s = await sinkStatus(d.url, 'peer');
      return s.skipped.length > 0 && s.lag_events === 0 ? s : undefined;
    });
    assert.equal(idsOf(peer.records), ['site:1', 'site:2']);
    assert.equal({ state: status.state, skipped: status.skipped },
      { state: 'skipped', skipped: [`${file} is gone: the events of run r1 after r1:0 in it were not forwarded`] });
  } finally {
    await d.close();
    await peer.down();
    removeDir(siteDir);
  }
});

test('a run file deleted by retention is not reported missing, also after a restart', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  const flags = { retain: '30d' };
  let d = await startTestDaemon({ siteDir, clock, flags });
  const file = path.join(siteDir, 'r1', 'telemetry.ndjson');
  try {
    await postEvent(d.url, { type: 'a', data: 1 });
    await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    await postEvent(d.url, { type: 'cam', data: 1 });
    await request(d.url, '/run/stop', { method: 'POST' });
    await postEvent(d.url, { type: 'a', data: 2 });
    const old = new Date(Date.parse(NOW) - 90 * 86_400_000);
    fs.utimesSync(file, old, old);
    assert.equal((await d.daemon.housekeeping!.runOnce()).deleted, [file]);
    const history = (await request(d.url, '/history')).json;
    assert.equal([history.events.map((e: any) => e.seq), history.damaged], [[1, 2], undefined]);
  } finally {
    await d.close();
  }
  d = await startTestDaemon({ siteDir, clock, flags });
  try {
    const history = (await request(d.url, '/history')).json;
    assert.equal([history.events.map((e: any) => e.seq), history.damaged], [[1, 2], undefined]);
    assert.is((await request(d.url, '/status')).json.damaged, undefined);
    assert.equal(d.logs.filter((l) => l.includes('missing')), []);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test.run();
