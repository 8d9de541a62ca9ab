import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A stop is bounded whatever runs (issue 22): a compression in progress is abandoned between
// two gzip members, with nothing half-written left as the archive and the original kept.

const NOW = '2026-03-17T20:00:00.000Z';

test('a stop during the compression of a large day abandons it: the original whole, no .gz, no temp file', async () => {
  const siteDir = tempDir();
  const day = path.join(siteDir, 'site_20260301.ndjson');
  const line = (seq: number) => `{"seq":${seq},"ts":"2026-03-01T00:00:00.000Z","type":"a","data":"${String(seq).padStart(200, 'x')}","meta":{}}\n`;
  const fd = fs.openSync(day, 'w');
  for (let seq = 1; seq <= 200_000;) {
    let chunk = '';
    for (let k = 0; k < 5000; k++, seq++) chunk += line(seq);
    fs.writeSync(fd, chunk);
  }
  fs.closeSync(fd);
  const size = fs.statSync(day).size;
  const old = new Date(Date.parse(NOW) - 10 * 86_400_000);
  fs.utimesSync(day, old, old);
  // the first pass starts with the daemon; the stop comes while it compresses ~46 MB
  const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW), flags: { compressAfter: '2d', shutdownTimeout: '0' } });
  const t0 = Date.now();
  await d.close();
  const stopMs = Date.now() - t0;
  try {
    assert.equal(fs.readdirSync(siteDir).filter((n) => !n.startsWith('.')), ['site_20260301.ndjson']);
    assert.is(fs.statSync(day).size, size);
    assert.is(d.logs.filter((l) => l.includes(`the compression of ${day} was abandoned`)).length, 1, d.logs.join('\n'));
    assert.ok(stopMs < 3000, `the stop took ${stopMs} ms`);
  } finally {
    removeDir(siteDir);
  }
});

test.run();
