import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { FaultyFs } from './helpers/faulty-fs.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// The state files (.meridian/active-run.json, snapshot.json) are written whole or not at
// all, and a run start or stop whose record cannot be written has exactly one outcome: 503
// with nothing changed. Failures are injected through the store's write seam.

const AT = '2026-06-01T22:00:00.000Z';

async function withFaults(fn: (d: TestDaemon, faulty: FaultyFs, reopen: () => Promise<TestDaemon>) => Promise<void>): Promise<void> {
  const siteDir = tempDir();
  const clock = new ManualClock(AT);
  const faulty = new FaultyFs();
  const opened: TestDaemon[] = [];
  const reopen = async () => {
    await opened.at(-1)?.close();
    const d = await startTestDaemon({ clock, siteDir });
    opened.push(d);
    return d;
  };
  const d = await startTestDaemon({ clock, siteDir, fs: faulty.fs });
  opened.push(d);
  try {
    await fn(d, faulty, reopen);
  } finally {
    for (const o of opened) await o.close();
    removeDir(siteDir);
  }
}

const stateDir = (d: TestDaemon) => path.join(d.siteDir, '.meridian');

test('a run record cut short by a filling disk: 503, no run, no run directory, and none after a restart', () => withFaults(async (d, faulty, reopen) => {
  faulty.fault = (call, file) => (call === 'write' && file.startsWith('active-run.json.tmp') ? 'short' : undefined);
  const start = await request(d.url, '/run/start', { body: { run_id: 'n1', meta: { observer: 'x'.repeat(2000) } } });
  assert.is(start.status, 503);
  assert.equal(start.json, { detail: 'Could not record the start of run n1 (EFBIG); no run was started.', code: 'STORAGE_UNAVAILABLE' });
  faulty.fault = undefined;
  assert.is((await request(d.url, '/run')).status, 404);
  assert.is(fs.existsSync(path.join(d.siteDir, 'n1')), false, 'the run directory it created is gone');
  assert.equal(fs.readdirSync(stateDir(d)).filter((n) => n.startsWith('active-run')), []);
  assert.equal((await postEvent(d.url, { type: 'weather', data: 1 })).json.meta, {});
  const again = await reopen();
  assert.is((await request(again.url, '/run')).status, 404);
  assert.equal((await postEvent(again.url, { type: 'weather', data: 2 })).json.meta, {});
}));

test('short writes are continued: a run record written 8 bytes at a time is whole and survives a restart', () => withFaults(async (d, faulty, reopen) => {
  faulty.fault = (call, file) => (call === 'write' && file.startsWith('active-run.json.tmp') ? 'partial' : undefined);
  const start = await request(d.url, '/run/start', { body: { run_id: 'n1', meta: { observer: 'ada' } } });
  assert.is(start.status, 200);
  faulty.fault = undefined;
  const state = JSON.parse(fs.readFileSync(path.join(stateDir(d), 'active-run.json'), 'utf8'));
  // the run_dir inside the site directory is recorded relative to it
  const recorded = { ...start.json, run_dir: 'n1' };
  assert.equal(state, { record: recorded, record_json: JSON.stringify(recorded), start_offset: 0, start_seq: 0 });
  const again = await reopen();
  assert.equal((await request(again.url, '/run')).json, start.json);
}));

test('a run stop that cannot be recorded: 503, the run stays active, a retry stops it', () => withFaults(async (d, faulty) => {
  const run = await request(d.url, '/run/start', { body: { run_id: 'n1' } });
  faulty.fault = (call, file) => (call === 'rm' && file === 'active-run.json' ? 'EIO' : undefined);
  const stop = await request(d.url, '/run/stop', { method: 'POST' });
  assert.is(stop.status, 503);
  assert.equal(stop.json, { detail: 'Could not record the stop of run n1 (EIO); it is still active, try again.', code: 'STORAGE_UNAVAILABLE' });
  assert.equal((await request(d.url, '/run')).json, run.json);
  const during = await postEvent(d.url, { type: 'camera', data: 1 });
  assert.equal([during.json.seq, during.json.meta], [1, { run_id: 'n1' }]);
  assert.equal(readLines(path.join(d.siteDir, 'n1', 'telemetry.ndjson')), [during.json]);
  faulty.fault = undefined;
  const retry = await request(d.url, '/run/stop', { method: 'POST' });
  assert.is(retry.status, 200);
  assert.equal(retry.json, { ...run.json, stopped_at: AT });
  assert.is((await request(d.url, '/run')).status, 404);
  assert.is(fs.existsSync(path.join(stateDir(d), 'active-run.json')), false);
}));

test('a run stop whose snapshot then fails: one outcome, 200 and stopped, the failure logged', () => withFaults(async (d, faulty, reopen) => {
  const run = await request(d.url, '/run/start', { body: { run_id: 'n1' } });
  faulty.fault = (call, file) => (call === 'rename' && file === 'snapshot.json' ? 'ENOSPC' : undefined);
  const stop = await request(d.url, '/run/stop', { method: 'POST' });
  assert.is(stop.status, 200);
  assert.equal(stop.json, { ...run.json, stopped_at: AT });
  assert.is((await request(d.url, '/run')).status, 404);
  assert.ok(d.logs.includes(`${AT} ERROR run n1 stopped, but the snapshot after it failed (ENOSPC); the next start replays the files`), d.logs.join('\n'));
  faulty.fault = undefined;
  const again = await reopen();
  assert.is((await request(again.url, '/run')).status, 404);
}));

test('a run start whose held-seq file cannot be reset answers 503 (not 500) and starts nothing', () => withFaults(async (d, faulty) => {
  faulty.fault = (call, file) => (call === 'truncate' && file === 'held-run.ndjson' ? 'EIO' : undefined);
  fs.writeFileSync(path.join(stateDir(d), 'held-run.ndjson'), '');
  const start = await request(d.url, '/run/start', { body: { run_id: 'n1' } });
  assert.equal([start.status, start.json], [503, { detail: 'Could not record the start of run n1 (EIO); no run was started.', code: 'STORAGE_UNAVAILABLE' }]);
  assert.is((await request(d.url, '/run')).status, 404);
  assert.is(fs.existsSync(path.join(d.siteDir, 'n1')), false);
}));

test('a snapshot cut short is never put in place: the old one stays whole', () => withFaults(async (d, faulty) => {
  await postEvent(d.url, { type: 'weather', data: 1 });
  d.daemon.store.snapshot();
  const before = fs.readFileSync(path.join(stateDir(d), 'snapshot.json'), 'utf8');
  await postEvent(d.url, { type: 'weather', data: 2 });
  faulty.fault = (call, file) => (call === 'write' && file.startsWith('snapshot.json.tmp') ? 'short' : undefined);
  assert.throws(() => d.daemon.store.snapshot(), /EFBIG/);
  faulty.fault = undefined;
  assert.is(fs.readFileSync(path.join(stateDir(d), 'snapshot.json'), 'utf8'), before);
  assert.equal(fs.readdirSync(stateDir(d)).filter((n) => n.includes('.tmp')), []);
}));

test.run();
