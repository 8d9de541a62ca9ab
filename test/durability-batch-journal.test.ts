import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { FaultyFs } from './helpers/faulty-fs.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// The batch journal (`.meridian/batch.json`, docs/storage.md "Batches across a crash"): what a
// start does with the journal a crash left, and that a batch that failed (503) never makes a
// later start cut what was acknowledged after it.

const AT = '2026-06-01T22:00:00.000Z';
const DAY = 'site_20260601.ndjson';
const env = { TZ: 'UTC' };

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = tempDir();
  try {
    await fn(dir);
  } finally {
    removeDir(dir);
  }
}

const batch = (events: object[]) => ({ method: 'POST', body: events });

test('a start cuts every file a journal names back to its length before the batch, and logs it', () => withDir(async (dir) => {
  let d: TestDaemon | undefined = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env });
  const kept = await postEvent(d.url, { type: 'a', data: 1 });
  await d.close();
  const site = path.join(dir, DAY);
  const eph = path.join(dir, '.meridian', 'ephemeral-site.ndjson');
  const held = path.join(dir, '.meridian', 'held-site.ndjson');
  const siteLength = fs.statSync(site).size;
  // what a daemon killed inside a batch's write leaves: the journal, then part of each file
  fs.writeFileSync(path.join(dir, '.meridian', 'batch.json'),
    `${JSON.stringify({ files: [[held, 0], [eph, 0], [site, siteLength]], first_seq: 2, last_seq: 4 })}\n`);
  fs.writeFileSync(held, '3\n');
  fs.writeFileSync(eph, '{"seq":2,"ts":"2026-06-01T22:00:00.000Z","type":"b","data":2,"meta":{}}\n');
  fs.appendFileSync(site, '{"seq":3,"ts":"2026-06-01T22:00:00.000Z","type":"a","data":3,"meta":{}}\n{"seq":4,"ts":"2026-06-0');
  try {
    d = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env });
    const cut = (file: string, bytes: number, at: number) =>
      `WARN ${file}: cut ${bytes} byte(s) of an unfinished batch (seqs 2..4) at byte ${at}: the daemon stopped while writing it and never acknowledged it`;
    const warned = d.logs.filter((l) => l.includes('unfinished batch')).map((l) => l.replace(/^\S+ /, ''));
    assert.equal(warned, [cut(held, 2, 0), cut(eph, 72, 0), cut(site, 96, siteLength)]);
    assert.equal(readLines(site), [kept.json]);
    assert.equal((await request(d.url, '/current?freshness=false')).json, { current: { a: kept.json } });
    assert.is((await postEvent(d.url, { type: 'a', data: 5 })).json.seq, 2, 'the cut batch consumed no seq');
    assert.is(fs.readFileSync(path.join(dir, '.meridian', 'batch.json'), 'utf8'), '');
  } finally {
    await d?.close();
  }
}));

test('a torn journal (the daemon died writing it, before any line of the batch): a warning, nothing cut', () => withDir(async (dir) => {
  let d: TestDaemon | undefined = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env });
  const kept = await postEvent(d.url, { type: 'a', data: 1 });
  await d.close();
  const journal = path.join(dir, '.meridian', 'batch.json');
  fs.writeFileSync(journal, '{"files":[["/x",0]],"fir');
  try {
    d = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env });
    assert.ok(d.logs.some((l) => l.endsWith(`WARN batch journal ${journal} holds a torn entry (the daemon stopped before writing the batch); nothing to cut`)), d.logs.join('\n'));
    assert.equal(readLines(path.join(dir, DAY)), [kept.json]);
    assert.is(fs.readFileSync(journal, 'utf8'), '');
  } finally {
    await d?.close();
  }
}));

// [name, which write fails (file name), the batch]: a 503 batch leaves no journal behind
const FAILED: Array<[string, string, object[]]> = [
  ['the day file', DAY, [{ type: 'a', data: 2 }, { type: 'a', data: 3 }]],
  ['the ephemeral side file', 'ephemeral-site.ndjson', [{ type: 'a', data: 2, store_permanently: false }, { type: 'a', data: 3 }]],
  ['the held side file', 'held-site.ndjson', [{ type: 'a', data: 2, make_current: false }, { type: 'a', data: 3 }]],
  ['the journal itself', 'batch.json', [{ type: 'a', data: 2 }, { type: 'a', data: 3 }]],
];

for (const [name, failing, events] of FAILED) {
  test(`a batch whose write to ${name} fails: 503, and later events survive a restart`, () => withDir(async (dir) => {
    const faulty = new FaultyFs();
    let d: TestDaemon | undefined = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env, fs: faulty.fs });
    try {
      const first = await postEvent(d.url, { type: 'a', data: 1 });
      faulty.fault = (call, file) => (call === 'write' && file === failing ? 'short' : undefined);
      const failed = await request(d.url, '/events', batch(events));
      assert.equal([failed.status, failed.json.code], [503, 'STORAGE_UNAVAILABLE']);
      faulty.fault = undefined;
      const after = await postEvent(d.url, { type: 'a', data: 4 });
      assert.is(after.json.seq, 2, 'the failed batch consumed no seq');
      await d.close();
      d = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env });
      assert.equal(readLines(path.join(dir, DAY)), [first.json, after.json]);
      assert.equal((await request(d.url, '/current/a')).json, after.json);
      assert.not.ok(d.logs.some((l) => l.includes('unfinished batch')), d.logs.join('\n'));
    } finally {
      await d?.close();
    }
  }));
}

test('a batch written whole leaves the journal empty: a clean or unclean restart cuts nothing', () => withDir(async (dir) => {
  let d: TestDaemon | undefined = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env });
  try {
    const ok = await request(d.url, '/events', batch([{ type: 'a', data: 1 }, { type: 'b', data: 2, store_permanently: false }, { type: 'a', data: 3, make_current: false }]));
    assert.equal(ok.json, { recorded: 3, first_seq: 1, last_seq: 3, run_id: null });
    assert.is(fs.readFileSync(path.join(dir, '.meridian', 'batch.json'), 'utf8'), '');
    await d.close();
    d = await startTestDaemon({ siteDir: dir, clock: new ManualClock(AT), env });
    assert.equal(readLines(path.join(dir, DAY)).map((e) => (e as { seq: number }).seq), [1, 3]);
    assert.equal(Object.keys((await request(d.url, '/current?freshness=false')).json.current), ['a', 'b']);
    assert.is((await request(d.url, '/current/a')).json.seq, 1);
  } finally {
    await d?.close();
  }
}));

test.run();
