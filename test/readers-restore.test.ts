import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import { ManualClock } from './helpers/clock.js';
import { FaultyFs, type Fault } from './helpers/faulty-fs.js';
import { startTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The clock stepped back into a compressed day (issue 23, gzip item 4): the day's .gz is
// decompressed as a stream off the event loop, through the storage seam (a write or the
// rename can fail: the event is answered 503, the .gz left whole, no temp file left), while
// the events that arrive meanwhile wait and are then recorded in order.

const line = (seq: number) => JSON.stringify({ seq, ts: '2026-03-01T00:00:00.000Z', type: 'a', data: seq, meta: {} });
const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${line(from + i)}\n`).join('');
const BACK = '2026-03-01T20:00:00.000Z';

// [name, the fault while decompressing, the reason the 503 names]
const FAULTS: [string, Fault, string][] = [
  ['a write of the temp file fails (disk full)', (call, file) => (call === 'write' && file === 'site_20260301.ndjson.restore.tmp' ? 'ENOSPC' : undefined), 'ENOSPC'],
  ['the rename into place fails', (call, file) => (call === 'rename' && file === 'site_20260301.ndjson' ? 'EIO' : undefined), 'EIO'],
];

for (const [name, fault, reason] of FAULTS) {
  test(`the clock back in a compressed day, ${name}: 503 naming it, the .gz whole, then decompressed once the fault is gone`, async () => {
    const siteDir = tempDir();
    const gz = path.join(siteDir, 'site_20260301.ndjson.gz');
    // two members, the second with a wrong Md length (read whole: zcat reads it too)
    const second = encodeMember(Buffer.from(lines(3, 3)));
    second[16]! ^= 0x5a;
    const bytes = Buffer.concat([encodeMember(Buffer.from(lines(1, 2))), second]);
    fs.writeFileSync(gz, bytes);
    fs.writeFileSync(path.join(siteDir, 'site_20260302.ndjson'), lines(4, 5));
    const faulty = new FaultyFs();
    faulty.fault = fault;
    const d = await startTestDaemon({ siteDir, clock: new ManualClock(BACK), env: { TZ: 'UTC' }, fs: faulty.fs });
    try {
      const refused = await request(d.url, '/event', { body: { type: 'b', data: 1 } });
      assert.equal([refused.status, refused.json], [503, { code: 'STORAGE_UNAVAILABLE',
        detail: `the day file site_20260301.ndjson.gz is damaged (${reason}) and cannot be appended to; nothing was recorded` }]);
      assert.equal(fs.readdirSync(siteDir).filter((f) => f.startsWith('site_')), ['site_20260301.ndjson.gz', 'site_20260302.ndjson']);
      assert.equal(fs.readFileSync(gz), bytes);
      faulty.fault = undefined;
      // three events at once: all wait for the one decompression, then go in order
      const answers = await Promise.all([1, 2, 3].map((data) => request(d.url, '/event', { body: { type: 'b', data } })));
      assert.equal(answers.map((a) => [a.status, a.json.seq]), [[200, 6], [200, 7], [200, 8]]);
      const written = answers.map((a) => `${JSON.stringify(a.json)}\n`).join('');
      assert.equal(fs.readdirSync(siteDir).filter((f) => f.startsWith('site_')), ['site_20260301.ndjson', 'site_20260302.ndjson']);
      assert.is(fs.readFileSync(path.join(siteDir, 'site_20260301.ndjson'), 'utf8'), lines(1, 3) + written);
      assert.is(d.logs.filter((l) => l.includes('decompressed to append to it again')).length, 1);
      // through the seam: the temp file written, synced and renamed there
      assert.ok(faulty.calls.includes('write site_20260301.ndjson.restore.tmp'), faulty.calls.join(', '));
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

// [name, the fault while decompressing the run's file, the errno of the 503 it gives (undefined: the start goes through)]
const RUN_FAULTS: [string, Fault | undefined, string | undefined][] = [
  ['no fault', undefined, undefined],
  ['a write of the temp file fails (disk full)', (call, file) => (call === 'write' && file === 'telemetry.ndjson.restore.tmp' ? 'ENOSPC' : undefined), 'ENOSPC'],
];

for (const [name, fault, reason] of RUN_FAULTS) {
  test(`a stopped run whose file was compressed, started again (${name}): decompressed off the event loop, its seq continues`, async () => {
    const siteDir = tempDir();
    const runDir = path.join(siteDir, '042');
    fs.mkdirSync(runDir);
    const gz = path.join(runDir, 'telemetry.ndjson.gz');
    const runLine = (seq: number) => `${JSON.stringify({ seq, ts: '2026-03-01T00:00:00.000Z', type: 'cam', data: seq, meta: { run_id: '042' } })}\n`;
    const second = encodeMember(Buffer.from(runLine(3)));
    second[20]! ^= 0x5a;
    const bytes = Buffer.concat([encodeMember(Buffer.from(runLine(1) + runLine(2))), second]);
    fs.writeFileSync(gz, bytes);
    const faulty = new FaultyFs();
    faulty.fault = fault;
    const d = await startTestDaemon({ siteDir, clock: new ManualClock('2026-03-17T20:00:00.000Z'), fs: faulty.fs });
    try {
      const started = await request(d.url, '/run/start', { body: { run_id: '042' } });
      if (reason !== undefined) {
        // a full disk is the disk's state, not the directory's fault (hostile tester D, N10)
        assert.equal([started.status, started.json], [503, { code: 'DISK_FULL',
          detail: `The disk is full: could not decompress ${path.join(runDir, 'telemetry.ndjson')} to continue the run (${reason}); no run was started.` }]);
        assert.equal([fs.readdirSync(runDir), fs.readFileSync(gz)], [['telemetry.ndjson.gz'], bytes]);
        return;
      }
      assert.is(started.status, 200);
      const posted = await request(d.url, '/event', { body: { type: 'cam', data: 4 } });
      assert.equal([posted.status, posted.json.seq], [200, 4]);
      assert.equal(fs.readdirSync(runDir), ['telemetry.ndjson']);
      assert.is(fs.readFileSync(path.join(runDir, 'telemetry.ndjson'), 'utf8'), runLine(1) + runLine(2) + runLine(3) + `${JSON.stringify(posted.json)}\n`);
      assert.is(d.logs.filter((l) => l.includes('decompressed to continue the run')).length, 1);
      assert.ok(faulty.calls.includes('write telemetry.ndjson.restore.tmp'), faulty.calls.join(', '));
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test.run();
