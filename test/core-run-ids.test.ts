import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// Run ids: `site` (the site stream's name) is refused in any case and from every source, and a
// derived id works whatever ids were given before (docs/http-api.md, run start).

const T0 = '2026-03-17T20:00:00.000Z';
const NINES_128 = '9'.repeat(128);

/** Every entry under `dir` with file contents (links as `-> target`). */
function tree(dir: string, root = dir, out: Record<string, string> = {}): Record<string, string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) out[path.relative(root, full)] = `-> ${fs.readlinkSync(full)}`;
    else if (entry.isFile()) out[path.relative(root, full)] = fs.readFileSync(full, 'utf8');
    else {
      out[path.relative(root, full)] = '<dir>';
      tree(full, root, out);
    }
  }
  return out;
}

const siteDetail = (field: string, id: string) =>
  `${field} ${JSON.stringify(id)} is the name of the site stream (in any case); choose another run id`;

// [name, start body, exact detail]
const REFUSED: Array<[string, object, string]> = [
  ['run_id site', { run_id: 'site' }, siteDetail('run_id', 'site')],
  ['run_id SITE', { run_id: 'SITE' }, siteDetail('run_id', 'SITE')],
  ['run_id Site', { run_id: 'Site' }, siteDetail('run_id', 'Site')],
  ['meta.run_id site', { meta: { run_id: 'site', observer: 'ada' } }, siteDetail('meta.run_id', 'site')],
  ['meta.run_id sIte', { meta: { run_id: 'sIte' } }, siteDetail('meta.run_id', 'sIte')],
  ['run_id site with a run_dir', { run_id: 'site', run_dir: 'nights/a' }, siteDetail('run_id', 'site')],
];

for (const [name, body, detail] of REFUSED) {
  test(`a run start with ${name}: 422 INVALID_RUN, nothing created, later starts work`, () => {
    const clock = new ManualClock(T0);
    return withTestDaemon({ clock, env: { TZ: 'UTC' } }, async (d) => {
      await postEvent(d.url, { type: 'weather', data: 1 });
      const before = tree(d.siteDir);
      const answer = await request(d.url, '/run/start', { body });
      assert.is(answer.status, 422);
      assert.equal(answer.json, { detail, code: 'INVALID_RUN' });
      assert.equal(tree(d.siteDir), before);
      assert.is((await request(d.url, '/ready')).json.run_active, false);
      const next = await request(d.url, '/run/start', { method: 'POST' });
      assert.equal([next.status, next.json.run_id], [200, '001']);
    });
  });
}

// [name, start body, run id, run_dir under the site directory]: names that only look like the site's
const ACCEPTED: Array<[string, object, string, string]> = [
  ['run_dir named site (a derived id)', { run_dir: 'site' }, '001', 'site'],
  ['run_dir nights/site', { run_dir: 'nights/site' }, '001', 'nights/site'],
  ['run_id site-1', { run_id: 'site-1' }, 'site-1', 'site-1'],
  ['run_id sites', { run_id: 'sites' }, 'sites', 'sites'],
  ['run_id wins over meta.run_id site', { run_id: 'n1', meta: { run_id: 'site' } }, 'n1', 'n1'],
];

for (const [name, body, id, dir] of ACCEPTED) {
  test(`a run start with ${name} is accepted, and its events are its own`, () => {
    const clock = new ManualClock(T0);
    return withTestDaemon({ clock, env: { TZ: 'UTC' } }, async (d) => {
      const answer = await request(d.url, '/run/start', { body });
      assert.is(answer.status, 200, answer.text);
      assert.equal([answer.json.run_id, answer.json.run_dir], [id, path.join(d.siteDir, dir)]);
      const event = await postEvent(d.url, { type: 'dome', data: 1 });
      assert.equal(readLines(path.join(d.siteDir, dir, 'telemetry.ndjson')), [event.json]);
      const site = await request(d.url, '/history?run=site');
      assert.equal(site.json.events, []);
    });
  });
}

// [name, what is in the site directory, run starts in order, ids answered]
type Plant = (site: string, elsewhere: string) => void;
const DERIVED: Array<[string, Plant, object[], string[]]> = [
  ['after site-1', () => {}, [{ run_id: 'site-1' }, {}], ['site-1', '001']],
  ['after abc', () => {}, [{ run_id: 'abc' }, {}], ['abc', '001']],
  ['after 0999', () => {}, [{ run_id: '0999' }, {}], ['0999', '1000']],
  ['after 1e3', () => {}, [{ run_id: '1e3' }, {}], ['1e3', '001']],
  ['after 007a', () => {}, [{ run_id: '007a' }, {}], ['007a', '001']],
  ['after a huge number', () => {}, [{ run_id: '99999999999999999999' }, {}], ['99999999999999999999', '100000000000000000000']],
  ['after 128 nines (the next number would pass 128 characters)', () => {}, [{ run_id: NINES_128 }, {}, {}], [NINES_128, '001', '002']],
  ['after a 128-digit name that still has room', () => {}, [{ run_id: `${'0'.repeat(127)}5` }, {}], [`${'0'.repeat(127)}5`, `${'0'.repeat(127)}6`]],
  ['after ids given with run_dir elsewhere', () => {}, [{ run_id: '0041', run_dir: '<elsewhere>/a' }, { run_dir: '<elsewhere>/b' }, {}], ['0041', '0042', '0043']],
  ['a numeric file in the way is skipped', (site) => { fs.mkdirSync(path.join(site, '001')); fs.writeFileSync(path.join(site, '002'), 'x'); }, [{}], ['003']],
  ['a numeric link in the way is skipped', (site, elsewhere) => { fs.symlinkSync(elsewhere, path.join(site, '001')); }, [{}, {}], ['002', '003']],
  ['a 129-digit directory does not stop derivation', (site) => fs.mkdirSync(path.join(site, `1${'0'.repeat(128)}`)), [{}], ['001']],
];

for (const [name, plant, starts, ids] of DERIVED) {
  test(`derived run ids: ${name}`, async () => {
    const siteDir = tempDir();
    const elsewhere = tempDir();
    let d: TestDaemon | undefined;
    try {
      plant(siteDir, elsewhere);
      const clock = new ManualClock(T0);
      const got: unknown[] = [];
      for (const [i, body] of starts.entries()) {
        // a restart between starts: the ids given before come back from runs.json
        d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
        const answer = await request(d.url, '/run/start', { body: JSON.parse(JSON.stringify(body).replace('<elsewhere>', elsewhere)) as object });
        got.push(answer.status === 200 ? answer.json.run_id : `${answer.status} ${answer.text}`);
        assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, answer.status === 200 ? 200 : 404, `start ${i}`);
        await d.close();
        d = undefined;
      }
      assert.equal(got, ids);
    } finally {
      await d?.close();
      removeDir(siteDir);
      removeDir(elsewhere);
    }
  });
}

test('an active run named site restored from an earlier version is suspended, and events go to the site file', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(T0);
  const runDir = path.join(siteDir, 'site');
  fs.mkdirSync(path.join(siteDir, '.meridian'));
  fs.mkdirSync(runDir);
  fs.writeFileSync(path.join(runDir, 'telemetry.ndjson'), '');
  const record = { run_dir: runDir, run_id: 'site', meta: { run_id: 'site' }, started_at: T0 };
  fs.writeFileSync(path.join(siteDir, '.meridian', 'active-run.json'), JSON.stringify({ record, start_offset: 0, start_seq: 0 }));
  let d: TestDaemon | undefined;
  try {
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    const status = await request(d.url, '/status');
    assert.equal(status.json.suspended_run, { run_id: 'site', run_dir: runDir, reason: siteDetail('run_id', 'site') });
    const event = await postEvent(d.url, { type: 'weather', data: 1 });
    assert.equal(event.json, { seq: 1, ts: T0, type: 'weather', data: 1, meta: {} });
    assert.equal(readLines(path.join(siteDir, 'site_20260317.ndjson')), [event.json]);
    assert.is(fs.readFileSync(path.join(runDir, 'telemetry.ndjson'), 'utf8'), '');
    const stop = await request(d.url, '/run/stop', { method: 'POST' });
    assert.equal([stop.status, stop.json], [200, { ...record, stopped_at: T0 }]);
    await d.close();
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    assert.is((await request(d.url, '/status')).json.suspended_run, null);
  } finally {
    await d?.close();
    removeDir(siteDir);
  }
});

test.run();
