import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// A run directory never is, contains or shadows a file the daemon owns, and no symbolic link
// planted in the site directory lets a relative run_dir or a run id lead outside it.

const T0 = '2026-03-17T20:00:00.000Z';
const TODAY = 'site_20260317.ndjson';

/** Every entry under `dir` (links as `-> target`, without following them). */
function tree(dir: string, root = dir, out: Record<string, string> = {}): Record<string, string> {
  // walked by hand: Node 22's recursive readdir follows a link to a directory (here `up -> ..`)
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) out[path.relative(root, full)] = `-> ${fs.readlinkSync(full)}`;
    else if (entry.isFile()) out[path.relative(root, full)] = fs.readFileSync(full, 'utf8');
    else if (entry.isDirectory()) {
      out[path.relative(root, full)] = '<dir>';
      tree(full, root, out);
    }
  }
  return out;
}

// [name, what to plant in the site directory (given it and a directory outside), start body, exact detail]
type Plant = (site: string, outside: string) => void;
const REFUSED: Array<[string, Plant, (site: string, outside: string) => object, (site: string, outside: string) => string]> = [
  ['run_dir named like a site file', () => {}, () => ({ run_dir: TODAY }),
    () => `run_dir "${TODAY}" would use ${TODAY}, a name the daemon keeps for its own files`],
  ['run_dir named like a future site file', () => {}, () => ({ run_dir: 'site_20990101.ndjson' }),
    () => 'run_dir "site_20990101.ndjson" would use site_20990101.ndjson, a name the daemon keeps for its own files'],
  ['run_id named like a site file', () => {}, () => ({ run_id: 'site_20260318.ndjson' }),
    () => 'run_id "site_20260318.ndjson" would use site_20260318.ndjson, a name the daemon keeps for its own files'],
  ['run_dir under a site file name', () => {}, () => ({ run_dir: `${TODAY}/x` }),
    () => `run_dir "${TODAY}/x" would use ${TODAY}, a name the daemon keeps for its own files`],
  ['run_dir .meridian', () => {}, () => ({ run_dir: '.meridian' }),
    () => 'run_dir ".meridian" would use .meridian, a name the daemon keeps for its own files'],
  ['run_dir inside .meridian', () => {}, () => ({ run_dir: '.meridian/runs/1' }),
    () => 'run_dir ".meridian/runs/1" would use .meridian, a name the daemon keeps for its own files'],
  ['run_id .meridian', () => {}, () => ({ run_id: '.meridian' }),
    () => 'run_id ".meridian" would use .meridian, a name the daemon keeps for its own files'],
  ['an absolute run_dir inside .meridian', () => {}, (site) => ({ run_dir: path.join(site, '.meridian', 'x') }),
    (site) => `run_dir "${path.join(site, '.meridian', 'x')}" would use .meridian, a name the daemon keeps for its own files`],
  ['an absolute run_dir that is the site directory', () => {}, (site) => ({ run_dir: site }),
    (site) => `run_dir "${site}" is the site directory itself; a run needs a directory of its own`],
  ['a planted link to a directory outside, as run_dir', (site, outside) => fs.symlinkSync(outside, path.join(site, 'escape')),
    () => ({ run_dir: 'escape/night' }), () => 'run_dir "escape/night" leads outside the site directory through a symbolic link'],
  ['a planted link to a directory outside, as run_id', (site, outside) => fs.symlinkSync(outside, path.join(site, 'escape')),
    () => ({ run_id: 'escape' }), () => 'run_id "escape" leads outside the site directory through a symbolic link'],
  ['a planted relative link out of the site directory', (site) => fs.symlinkSync('..', path.join(site, 'up')),
    () => ({ run_dir: 'up/x' }), () => 'run_dir "up/x" leads outside the site directory through a symbolic link'],
  ['a planted link to .meridian', (site) => fs.symlinkSync(path.join(site, '.meridian'), path.join(site, 'state')),
    () => ({ run_id: 'state' }), () => 'run_id "state" would use .meridian, a name the daemon keeps for its own files'],
  ['a planted broken link', (site) => fs.symlinkSync('/nonexistent/meridian', path.join(site, 'dangling')),
    () => ({ run_dir: 'dangling/x' }), (site) => `run_dir "dangling/x" leads through a broken symbolic link (${path.join(site, 'dangling')})`],
  ['a run file planted as a link to a file outside', (site, outside) => {
    fs.mkdirSync(path.join(site, 'r1'));
    fs.writeFileSync(path.join(outside, 'victim'), 'precious\n');
    fs.symlinkSync(path.join(outside, 'victim'), path.join(site, 'r1', 'telemetry.ndjson'));
  }, () => ({ run_id: 'r1' }),
  (site) => `run_id "r1": ${path.join(site, 'r1', 'telemetry.ndjson')} is not a regular file (a link or a directory); a run inside the site directory writes only there`],
  ['a run file planted as a link to a site file', (site) => {
    fs.writeFileSync(path.join(site, TODAY), '');
    fs.mkdirSync(path.join(site, 'r2'));
    fs.symlinkSync(path.join('..', TODAY), path.join(site, 'r2', 'telemetry.ndjson'));
  }, () => ({ run_id: 'r2' }),
  (site) => `run_id "r2": ${path.join(site, 'r2', 'telemetry.ndjson')} is not a regular file (a link or a directory); a run inside the site directory writes only there`],
];

for (const [name, plant, body, detail] of REFUSED) {
  test(`run start refuses ${name}: 422 INVALID_RUN, nothing created inside or outside`, async () => {
    const site = tempDir();
    const outside = tempDir();
    const clock = new ManualClock(T0);
    fs.mkdirSync(path.join(site, '.meridian'));
    plant(site, outside);
    try {
      await withTestDaemon({ siteDir: site, clock, env: { TZ: 'UTC' } }, async (d) => {
        await postEvent(d.url, { type: 'weather', data: 1 });
        const before = [tree(site), tree(outside)];
        const answer = await request(d.url, '/run/start', { body: body(site, outside) });
        assert.is(answer.status, 422);
        assert.equal(answer.json, { detail: detail(site, outside), code: 'INVALID_RUN' });
        assert.equal([tree(site), tree(outside)], before);
        assert.is((await request(d.url, '/ready')).json.run_active, false);
        assert.is((await postEvent(d.url, { type: 'weather', data: 2 })).json.seq, 2);
      });
    } finally {
      removeDir(outside);
    }
  });
}

test('a run start refused for a site file name leaves every later start working', async () => {
  const site = tempDir();
  const clock = new ManualClock(T0);
  let d: TestDaemon | undefined;
  try {
    d = await startTestDaemon({ siteDir: site, clock, env: { TZ: 'UTC' } });
    for (const runDir of [TODAY, 'site_20260318.ndjson', '.meridian/snapshot.json', '.meridian/daemon.lock']) {
      assert.is((await request(d.url, '/run/start', { body: { run_dir: runDir } })).status, 422, runDir);
    }
    await d.close();
    d = await startTestDaemon({ siteDir: site, clock, env: { TZ: 'UTC' } });
    const event = await postEvent(d.url, { type: 'weather', data: 1 });
    assert.is(event.status, 200);
    clock.advance(24 * 3600_000);
    assert.is((await postEvent(d.url, { type: 'weather', data: 2 })).status, 200, 'the next day file too');
    assert.equal(readLines(path.join(site, TODAY)), [event.json]);
  } finally {
    await d?.close();
    removeDir(site);
  }
});

test('a link inside the site directory that stays inside is followed, and the run is recorded without it', async () => {
  const site = tempDir();
  fs.mkdirSync(path.join(site, '014'));
  fs.symlinkSync('014', path.join(site, 'latest'));
  try {
    await withTestDaemon({ siteDir: site, clock: new ManualClock(T0), env: { TZ: 'UTC' } }, async (d) => {
      const answer = await request(d.url, '/run/start', { body: { run_id: 'n1', run_dir: 'latest/flats' } });
      assert.is(answer.status, 200, answer.text);
      assert.is(answer.json.run_dir, path.join(site, '014', 'flats'));
      const event = await postEvent(d.url, { type: 'camera', data: 1 });
      assert.equal(readLines(path.join(site, '014', 'flats', 'telemetry.ndjson')), [event.json]);
    });
  } finally {
    removeDir(site);
  }
});

test.run();
