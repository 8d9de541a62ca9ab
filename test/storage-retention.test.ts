import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import * as assert from 'uvu/assert';
import { compressFile, finishInterrupted, type CompressStep } from '../daemon/storage/compressed.js';
import { listSiteFiles } from '../daemon/ndjson/names.js';
import { scanFile } from '../daemon/ndjson/scan.js';
import { startDaemon, type RunningDaemon } from '../daemon/server.js';
import { resolveDaemonConfig, type DaemonFlags } from '../lib/config.js';
import { silentLogger } from '../lib/log.js';
import { ManualClock } from './helpers/clock.js';
import { postEvent, request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// --compress-after and --retain on a real daemon: what is compressed, what is deleted, what
// is never touched; .gz files read back at start-up; a compression interrupted at any step
// leaves one whole copy.

const NOW = '2026-03-17T20:00:00.000Z';
const DAY = 86_400_000;

/** An NDJSON file of envelopes seq from..to of `type`, last written `ageMs` before NOW. */
function dataFile(file: string, from: number, to: number, type: string, ageMs: number): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lines = [];
  for (let seq = from; seq <= to; seq++) lines.push(JSON.stringify({ seq, ts: '2026-03-01T00:00:00.000Z', type, data: seq, meta: {} }));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const when = new Date(Date.parse(NOW) - ageMs);
  fs.utimesSync(file, when, when);
  return file;
}

async function daemonOn(siteDir: string, flags: DaemonFlags, heldBack?: (file: string) => boolean): Promise<{ d: RunningDaemon; url: string }> {
  const config = { ...resolveDaemonConfig({ host: '127.0.0.1', siteDir, ...flags }, { TZ: 'UTC' }, siteDir), port: 0 };
  const d = await startDaemon(config, { clock: new ManualClock(NOW), logger: silentLogger, snapshotIntervalMs: 0, heldBack, housekeepingIntervalMs: 0 });
  return { d, url: `http://127.0.0.1:${d.port}` };
}

const names = (dir: string) => fs.readdirSync(dir).filter((n) => !n.startsWith('.')).sort();

test('retention deletes nothing when even the newest file is past --retain (a clock jumped ahead): it says why', async () => {
  const dir = tempDir();
  const site = (day: string) => path.join(dir, `site_${day}.ndjson`);
  dataFile(site('20251101'), 1, 2, 'a', 136 * DAY);
  dataFile(site('20251102'), 3, 4, 'a', 135 * DAY);
  dataFile(path.join(dir, '001', 'telemetry.ndjson'), 1, 3, 'cam', 134 * DAY);
  const { d } = await daemonOn(dir, { retain: '60d' });
  try {
    const report = await d.housekeeping!.runOnce();
    assert.equal([report.deleted, report.retentionSkipped],
      [[], 'every data file is older than --retain (the newest was written 134 day(s) ago): the clock may be wrong; nothing deleted']);
    assert.equal(names(dir), ['001', 'site_20251101.ndjson', 'site_20251102.ndjson']);
    assert.equal(fs.readdirSync(path.join(dir, '001')), ['telemetry.ndjson']);
  } finally {
    await d.close();
    removeDir(dir);
  }
});

test('compress and retain by age; never the active day, the active run, or what a forwarder holds back', async () => {
  const dir = tempDir();
  const site = (day: string) => path.join(dir, `site_${day}.ndjson`);
  dataFile(site('20260101'), 1, 2, 'a', 75 * DAY);       // past --retain: deleted
  dataFile(site('20260102'), 3, 4, 'a', 74 * DAY);       // past --retain, held back: kept as is
  dataFile(site('20260310'), 5, 6, 'a', 7 * DAY);        // past --compress-after: gzipped
  dataFile(site('20260316'), 7, 8, 'a', 1 * DAY);        // closed, young: kept plain
  dataFile(path.join(dir, '001', 'telemetry.ndjson'), 1, 3, 'cam', 9 * DAY); // stopped run: gzipped
  dataFile(path.join(dir, '000', 'telemetry.ndjson'), 1, 1, 'cam', 80 * DAY); // stopped run, past --retain: deleted
  const held = site('20260102');
  const { d, url } = await daemonOn(dir, { compressAfter: '2d', retain: '60d' }, (file) => file === held);
  try {
    const first = await d.housekeeping!.runOnce();
    assert.equal(first.deleted.sort(), [path.join(dir, '000', 'telemetry.ndjson'), site('20260101')]);
    assert.equal(first.compressed.sort(), [path.join(dir, '001', 'telemetry.ndjson'), site('20260310')]);
    assert.equal(first.failed, []);
    assert.equal(names(dir), ['000', '001', 'site_20260102.ndjson', 'site_20260310.ndjson.gz', 'site_20260316.ndjson']);
    assert.equal(fs.readdirSync(path.join(dir, '001')), ['telemetry.ndjson.gz']);
    assert.equal(fs.readdirSync(path.join(dir, '000')), []);
    assert.is(zlib.gunzipSync(fs.readFileSync(`${site('20260310')}.gz`)).toString().split('\n')[0], '{"seq":5,"ts":"2026-03-01T00:00:00.000Z","type":"a","data":5,"meta":{}}');
    assert.is(fs.statSync(`${site('20260310')}.gz`).mtimeMs, Date.parse(NOW) - 7 * DAY, 'the .gz keeps the age');

    // the active day and an active run, however old their files look, are never touched
    assert.is((await postEvent(url, { type: 'a', data: 'today' })).json.seq, 9);
    await request(url, '/run/start', { body: { run_id: 'r2' } });
    await postEvent(url, { type: 'cam', data: 1 });
    const ancient = new Date(Date.parse(NOW) - 400 * DAY);
    for (const file of [site('20260317'), path.join(dir, 'r2', 'telemetry.ndjson')]) fs.utimesSync(file, ancient, ancient);
    const second = await d.housekeeping!.runOnce();
    assert.equal(second.compressed, []);
    assert.equal(second.deleted, []);
    assert.equal(second.protected.sort(), [held, path.join(dir, 'r2', 'telemetry.ndjson'), site('20260317')].sort());
    assert.equal(readLines(site('20260317')).map((e: any) => e.seq), [9]);
  } finally {
    await d.close();
    removeDir(dir);
  }
});

test('start-up reads .gz files: without a snapshot the seq and the view come back from compressed days', async () => {
  const dir = tempDir();
  dataFile(path.join(dir, 'site_20260310.ndjson'), 1, 40, 'old', 7 * DAY);
  dataFile(path.join(dir, 'site_20260311.ndjson'), 41, 50, 'older', 6 * DAY);
  const first = await daemonOn(dir, { compressAfter: '2d' });
  // after a restart the last file of a past day is closed: compressed at the first pass, not held "in use"
  const pass = await first.d.housekeeping!.runOnce();
  assert.equal([pass.compressed, pass.protected], [[path.join(dir, 'site_20260310.ndjson'), path.join(dir, 'site_20260311.ndjson')], []]);
  assert.is((await postEvent(first.url, { type: 'today', data: 1 })).json.seq, 51);
  // history reads both compressed days and the new one
  assert.equal((await request(first.url, '/history?limit=2&cursor=site:48')).json.events.map((e: any) => e.seq), [49, 50]);
  assert.equal((await request(first.url, '/history?cursor=site:50')).json.events.map((e: any) => e.seq), [51]);
  await first.d.close();
  assert.equal(names(dir), ['site_20260310.ndjson.gz', 'site_20260311.ndjson.gz', 'site_20260317.ndjson']);
  fs.rmSync(path.join(dir, '.meridian', 'snapshot.json'));
  const again = await daemonOn(dir, {});
  try {
    assert.equal((await request(again.url, '/current/old')).json.seq, 40);
    assert.equal((await request(again.url, '/current/older')).json.seq, 50);
    assert.is((await postEvent(again.url, { type: 'new', data: 1 })).json.seq, 52);
  } finally {
    await again.d.close();
    removeDir(dir);
  }
});

test('a run started again on a stopped run whose file was compressed continues its seq', async () => {
  const dir = tempDir();
  dataFile(path.join(dir, '007', 'telemetry.ndjson'), 1, 5, 'cam', 9 * DAY);
  const { d, url } = await daemonOn(dir, { compressAfter: '2d' });
  try {
    await d.housekeeping!.runOnce();
    assert.equal(fs.readdirSync(path.join(dir, '007')), ['telemetry.ndjson.gz']);
    assert.is((await request(url, '/run/start', { body: { run_id: '007' } })).status, 200);
    assert.is((await postEvent(url, { type: 'cam', data: 6 })).json.seq, 6);
    assert.equal(fs.readdirSync(path.join(dir, '007')), ['telemetry.ndjson']);
    assert.equal(readLines(path.join(dir, '007', 'telemetry.ndjson')).map((e: any) => e.seq), [1, 2, 3, 4, 5, 6]);
  } finally {
    await d.close();
    removeDir(dir);
  }
});

test('a compression that fails after any step leaves one whole copy, read once; the next pass finishes it', async () => {
  for (const step of ['written', 'synced', 'verified', 'renamed'] as CompressStep[]) {
    const dir = tempDir();
    const file = dataFile(path.join(dir, 'site_20260310.ndjson'), 1, 500, 'x', 7 * DAY);
    const original = fs.readFileSync(file);
    const crash = new Error(`crash after ${step}`);
    const failed = await compressFile(file, { after: (s) => { if (s === step) throw crash; } }).then(() => undefined, (e: unknown) => e);
    assert.is(failed, crash);
    // what start-up reads: one file for the day, holding every line once
    const listed = listSiteFiles(dir);
    assert.is(listed.length, 1, step);
    const seqs: number[] = [];
    scanFile(listed[0]!, 0, (env) => seqs.push(env.seq));
    assert.equal(seqs, Array.from({ length: 500 }, (_, i) => i + 1), step);
    // the next pass: temp files gone, then one .gz that reads back the original
    await finishInterrupted(dir);
    if (fs.existsSync(file)) await compressFile(file);
    assert.equal(fs.readdirSync(dir), ['site_20260310.ndjson.gz'], step);
    assert.ok(zlib.gunzipSync(fs.readFileSync(`${file}.gz`)).equals(original), step);
    removeDir(dir);
  }
});

// [what lies beside the plain day file as its .gz, why it is no whole copy (undefined: it is one, the plain file goes)]
const BESIDE: [string, (plain: Buffer) => Buffer, string | undefined][] = [
  ['its whole copy (a compression interrupted after its rename)', (plain) => encodeMember(plain), undefined],
  ['zero bytes', () => Buffer.alloc(0), 'it is damaged: it is empty (0 bytes), not a gzip file'],
  ['not gzip at all', (plain) => plain, `it is damaged: bytes 0-216 of it hold no gzip member that decompresses`],
  ['a gzip of fewer lines', (plain) => zlib.gzipSync(plain.subarray(0, 72)), 'it holds 72 bytes of lines, the plain file 216'],
  // headers untouched, so only reading it whole can tell (hostile test, issue 23, finding 1b)
  ['indexed members whose data is corrupted inside', (plain) => corrupted(Buffer.concat([encodeMember(plain.subarray(0, 144)), encodeMember(plain.subarray(144))])),
    'it does not inflate whole (incorrect data check)'],
  ['indexed members of other lines of the same length', (plain) => encodeMember(Buffer.from(plain.toString().replace('"data":2', '"data":7'))),
    "its bytes differ from the plain file's after byte 0"],
  // (hostile tester D, N10: its bytes differ, it inflates whole)
  ['its two members swapped', (plain) => Buffer.concat([encodeMember(plain.subarray(144)), encodeMember(plain.subarray(0, 144))]),
    "its bytes differ from the plain file's after byte 0"],
  ['a whole copy with its CRC changed', (plain) => { const gz = encodeMember(plain); gz[gz.length - 8]! ^= 0xff; return gz; },
    'it does not inflate whole (incorrect data check)'],
];

/** `gz` with 4 bytes flipped in the middle of its first member's deflate data (its header intact). */
function corrupted(gz: Buffer): Buffer {
  const out = Buffer.from(gz);
  for (let i = 30; i < 34; i++) out[i]! ^= 0xff;
  return out;
}

for (const [name, gz, why] of BESIDE) {
  test(`a .gz beside its plain day file, ${name}: the plain file is read; it is removed only when the .gz is its whole copy`, async () => {
    const dir = tempDir();
    const file = dataFile(path.join(dir, 'site_20260310.ndjson'), 1, 3, 'x', 7 * DAY);
    const plain = fs.readFileSync(file);
    fs.writeFileSync(`${file}.gz`, gz(plain));
    const { d, url } = await daemonOn(dir, {});
    try {
      const history = (await request(url, '/history')).json;
      assert.equal([history.events.map((e: any) => e.seq), history.damaged], [[1, 2, 3], undefined]);
    } finally {
      await d.close();
    }
    const kept: string[] = [];
    const removed = await finishInterrupted(dir, () => false, (p, reason) => kept.push(`${p}: ${reason}`));
    assert.equal([removed, kept], why === undefined ? [[file], []] : [[], [`${file}: ${why}`]]);
    assert.equal(fs.readdirSync(dir).filter((n) => n.startsWith('site_')), why === undefined ? ['site_20260310.ndjson.gz'] : ['site_20260310.ndjson', 'site_20260310.ndjson.gz']);
    removeDir(dir);
  });
}

test('a file written to while it is compressed is left as it was', async () => {
  const dir = tempDir();
  const file = dataFile(path.join(dir, 'site_20260310.ndjson'), 1, 3, 'x', 7 * DAY);
  const failed = await compressFile(file, { after: (s) => { if (s === 'synced') fs.appendFileSync(file, '{"seq":4,"ts":"t","type":"x","data":4,"meta":{}}\n'); } })
    .then(() => undefined, (e: Error) => e.message);
  assert.is(failed, `${file} was written to while it was being compressed; it is left as it was`);
  assert.equal(fs.readdirSync(dir), ['site_20260310.ndjson']);
  assert.equal(readLines(file).map((e: any) => e.seq), [1, 2, 3, 4]);
  removeDir(dir);
});

test('a .gz that appears while a file is compressed is never written over: the compression fails, both kept as they were', async () => {
  for (const step of ['written', 'verified'] as CompressStep[]) {
    const dir = tempDir();
    const file = dataFile(path.join(dir, 'site_20260310.ndjson'), 1, 3, 'x', 7 * DAY);
    const plain = fs.readFileSync(file);
    const other = encodeMember(Buffer.from('{"seq":9,"ts":"2026-03-01T00:00:00.000Z","type":"x","data":9,"meta":{}}\n'));
    const failed = await compressFile(file, { after: (s) => { if (s === step) fs.writeFileSync(`${file}.gz`, other); } })
      .then(() => undefined, (e: Error) => e.message);
    assert.is(failed, `${file}.gz is there already: ${file} is not compressed over it; both are kept`, step);
    assert.equal(fs.readdirSync(dir), ['site_20260310.ndjson', 'site_20260310.ndjson.gz'], step);
    assert.ok(fs.readFileSync(`${file}.gz`).equals(other) && fs.readFileSync(file).equals(plain), step);
    removeDir(dir);
  }
});

test.run();
