import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../lib/version.js';
import { cli } from './helpers/cli.js';
import { freePort, startTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { withRestarts } from './helpers/restart.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// Start-up refuses only for the site directory itself: a run whose disk is missing, damaged
// state files and directories left where files belong each start the daemon, with a clear log line.

test('--site-dir under /proc fails at once with one line, instead of spinning', async () => {
  const port = String(await freePort());
  const run = await cli(['run', '--host', '127.0.0.1', '--port', port, '--site-dir', '/proc/meridian-telemetry'], { timeoutMs: 10_000 });
  assert.is(run.code, 1);
  assert.match(run.stderr, /^\S+Z ERROR site directory \/proc\/meridian-telemetry is not usable \(ENOENT\)\n$/);
});

test('an active run whose disk is not mounted at start-up is suspended: the daemon starts, events go to the site file', () => withRestarts(async (site) => {
  const disk = tempDir(); // the mount point of an external disk
  const unplugged = tempDir();
  const runDir = path.join(disk, 'night1');
  const file = path.join(runDir, 'telemetry.ndjson');
  try {
    let d = await site.start();
    const run = await request(d.url, '/run/start', { body: { run_id: 'night1', run_dir: runDir } });
    const during = await postEvent(d.url, { type: 'camera', data: 1 });
    await site.stop();
    fs.renameSync(runDir, path.join(unplugged, 'night1')); // the disk is not mounted at the next boot

    d = await site.start();
    assert.match(d.stderr(), `ERROR run night1 cannot resume: its run_dir ${runDir} is not usable (ENOENT). ` +
      'The run is suspended: events go to the site file until it is stopped (POST /run/stop) or the daemon is restarted with the directory back\n');
    assert.is(fs.existsSync(runDir), false, 'no new run directory on the empty mount point');
    assert.equal((await request(d.url, '/ready')).json, { ready: true, run_active: false, version: VERSION });
    const status = (await request(d.url, '/status')).json;
    assert.equal([status.run_id, status.suspended_run], [null, { run_id: 'night1', run_dir: runDir, reason: 'ENOENT' }]);
    const get = await request(d.url, '/run');
    assert.equal([get.status, get.json], [404, { detail: `No run is active: run night1 is suspended because its run_dir ${runDir} ` +
      'is not usable (ENOENT); events go to the site file. POST /run/stop ends it.', code: 'NO_ACTIVE_RUN' }]);
    const toSite = await postEvent(d.url, { type: 'camera', data: 2 });
    assert.equal([toSite.json.seq, toSite.json.meta], [1, {}]);
    assert.is(fs.existsSync(file), false);
    await site.stop();

    fs.renameSync(path.join(unplugged, 'night1'), runDir); // the disk is back
    d = await site.start();
    assert.equal((await request(d.url, '/run')).json, run.json, 'the run resumes');
    const after = await postEvent(d.url, { type: 'camera', data: 3 });
    assert.is(after.json.seq, 2);
    assert.equal(readLines(file), [during.json, after.json]);
  } finally {
    removeDir(disk);
    removeDir(unplugged);
  }
}));

test('a suspended run is ended by POST /run/stop (200 with its record), or replaced by a new run', () => withRestarts(async (site) => {
  const disk = tempDir();
  const runDir = path.join(disk, 'night1');
  try {
    let d = await site.start();
    const run = await request(d.url, '/run/start', { body: { run_id: 'night1', run_dir: runDir } });
    await site.stop();
    removeDir(disk);
    fs.writeFileSync(disk, 'not a directory any more');

    d = await site.start();
    assert.equal((await request(d.url, '/status')).json.suspended_run, { run_id: 'night1', run_dir: runDir, reason: 'ENOTDIR' });
    const stopped = await request(d.url, '/run/stop', { method: 'POST' });
    assert.is(stopped.status, 200);
    assert.equal({ ...stopped.json, stopped_at: undefined }, { ...run.json, stopped_at: undefined });
    assert.is((await request(d.url, '/status')).json.suspended_run, null);
    assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 404);
    await site.stop();
    d = await site.start();
    assert.not.match(d.stderr(), /suspended/);
    await site.stop();

    // suspended again, then replaced by a new run
    fs.writeFileSync(path.join(site.dir, '.meridian', 'active-run.json'), JSON.stringify({ record: run.json, start_offset: 0 }));
    d = await site.start();
    const next = await request(d.url, '/run/start', { body: { run_id: 'night2' } });
    assert.is(next.status, 200);
    assert.match(d.stderr(), 'WARN run night2 replaces the suspended run night1\n');
    assert.is((await request(d.url, '/status')).json.suspended_run, null);
    assert.equal((await postEvent(d.url, { type: 'dome', data: 1 })).json.meta, { run_id: 'night2' });
  } finally {
    fs.rmSync(disk, { force: true, recursive: true });
  }
}));

const RUN = { run_dir: '/srv/night1', run_id: 'night1', meta: { run_id: 'night1' }, started_at: '2026-03-17T20:00:00.000Z' };

// [name, what to put in .meridian (file name -> content, or a directory), expected warning]
const DAMAGED: Array<[string, Record<string, string | null>, (state: string) => string]> = [
  ['active-run.json cut short', { 'active-run.json': JSON.stringify({ record: RUN, start_offset: 0 }).slice(0, 40) },
    (s) => `WARN active run record ${path.join(s, 'active-run.json')} is damaged (not a whole run record); starting with no active run`],
  ['active-run.json garbage', { 'active-run.json': '\u0000\u0000\u0000' },
    (s) => `WARN active run record ${path.join(s, 'active-run.json')} is damaged (not a whole run record); starting with no active run`],
  ['active-run.json without its start offset', { 'active-run.json': JSON.stringify({ record: RUN }) },
    (s) => `WARN active run record ${path.join(s, 'active-run.json')} is damaged (not a whole run record); starting with no active run`],
  // (a relative run_dir is read under the site directory: this version records run dirs inside it so, storage.md)
  ['active-run.json with an empty run_dir', { 'active-run.json': JSON.stringify({ record: { ...RUN, run_dir: '' }, start_offset: 0 }) },
    (s) => `WARN active run record ${path.join(s, 'active-run.json')} is damaged (not a whole run record); starting with no active run`],
  ['active-run.json a directory', { 'active-run.json': null },
    (s) => `WARN active run record ${path.join(s, 'active-run.json')} cannot be read (EISDIR); starting with no active run`],
  ['snapshot.json cut short', { 'snapshot.json': '{"format":1,"written_at":"2026-03-17T20:00:00.000Z","site":{"fi' },
    (s) => `WARN snapshot ${path.join(s, 'snapshot.json')} is not valid JSON`],
  ['snapshot.json (format 3) without its closing line', { 'snapshot.json': '{"format":3,"written_at":"2026-03-17T20:00:00.000Z","site":null,"run":null,"types":1,"current":[\n' +
    `${JSON.stringify({ seq: 7, ts: RUN.started_at, type: 'weather', data: 1, meta: {} })}\n` },
    (s) => `WARN snapshot ${path.join(s, 'snapshot.json')} is incomplete; replaying the files instead`],
  ['snapshot.json (format 3) with a line missing', { 'snapshot.json': '{"format":3,"written_at":"2026-03-17T20:00:00.000Z","site":null,"run":null,"types":2,"current":[\n' +
    `${JSON.stringify({ seq: 7, ts: RUN.started_at, type: 'weather', data: 1, meta: {} })}\n]}\n` },
    (s) => `WARN snapshot ${path.join(s, 'snapshot.json')} is incomplete; replaying the files instead`],
  ['snapshot.json a directory', { 'snapshot.json': null },
    (s) => `WARN snapshot ${path.join(s, 'snapshot.json')} cannot be read (EISDIR); replaying the files instead`],
  ['held-site.ndjson a directory', { 'held-site.ndjson': null },
    (s) => `WARN held seqs ${path.join(s, 'held-site.ndjson')} cannot be read (EISDIR); readings posted with make_current false may become current`],
];

for (const [name, files, warning] of DAMAGED) {
  test(`a damaged state file does not stop start-up: ${name}`, async () => {
    const site = tempDir();
    const state = path.join(site, '.meridian');
    fs.mkdirSync(state);
    fs.writeFileSync(path.join(site, 'site_20260316.ndjson'), `${JSON.stringify({ seq: 7, ts: RUN.started_at, type: 'weather', data: 1, meta: {} })}\n`);
    for (const [file, content] of Object.entries(files)) {
      if (content === null) fs.mkdirSync(path.join(state, file));
      else fs.writeFileSync(path.join(state, file), content);
    }
    const d = await startTestDaemon({ siteDir: site });
    try {
      assert.ok(d.logs.some((l) => l.includes(warning(state))), d.logs.join('\n'));
      assert.equal((await request(d.url, '/ready')).json.run_active, false);
      assert.is((await request(d.url, '/current/weather')).json.seq, 7);
      assert.is((await postEvent(d.url, { type: 'weather', data: 2 })).json.seq, 8);
    } finally {
      await d.close();
      removeDir(site);
    }
  });
}

test('a directory named like a site file (left by an older version) does not stop start-up', async () => {
  const site = tempDir();
  fs.mkdirSync(path.join(site, 'site_20260101.ndjson'));
  fs.writeFileSync(path.join(site, 'site_20260316.ndjson'), `${JSON.stringify({ seq: 3, ts: RUN.started_at, type: 'weather', data: 1, meta: {} })}\n`);
  const d = await startTestDaemon({ siteDir: site });
  try {
    assert.is((await postEvent(d.url, { type: 'weather', data: 2 })).json.seq, 4);
  } finally {
    await d.close();
    removeDir(site);
  }
});

test.run();
