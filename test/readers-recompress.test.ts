import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { memberHeader } from '../daemon/ndjson/gzip-members.js';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// An earlier version's single-member `.gz` (no index: every query read it whole) is written
// again as indexed members by housekeeping; its content, age and readers stay the same.

const NOW = '2026-03-17T20:00:00.000Z';

test('housekeeping recompresses a single-member .gz as indexed members; a damaged one is left as it was', async () => {
  const siteDir = tempDir();
  const text = Array.from({ length: 3000 }, (_, i) => `${JSON.stringify({ seq: i + 1, ts: '2026-03-01T00:00:00.000Z', type: 'a', data: i + 1, meta: {} })}\n`).join('');
  const gz = path.join(siteDir, 'site_20260301.ndjson.gz');
  const damaged = path.join(siteDir, 'site_20260302.ndjson.gz');
  fs.writeFileSync(gz, zlib.gzipSync(text));
  const broken = zlib.gzipSync('x\n'.repeat(10)).subarray(0, 15);
  fs.writeFileSync(damaged, broken);
  const old = new Date(Date.parse(NOW) - 30 * 86_400_000);
  fs.utimesSync(gz, old, old);
  const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW), flags: { compressAfter: '2d' } });
  try {
    const pass = await d.daemon.housekeeping!.runOnce();
    assert.equal([pass.compressed, pass.failed], [[gz], [damaged]]);
    const bytes = fs.readFileSync(gz);
    assert.ok(memberHeader(bytes.subarray(0, 24)) !== undefined, 'indexed members');
    assert.is(zlib.gunzipSync(bytes).toString(), text);
    assert.is(fs.statSync(gz).mtimeMs, old.getTime());
    assert.equal(fs.readFileSync(damaged), broken);
    assert.equal((await request(d.url, '/history?cursor=site:2998')).json.events.map((e: any) => e.seq), [2999, 3000]);
    assert.equal(fs.readdirSync(siteDir).filter((n) => !n.startsWith('.')).sort(), ['site_20260301.ndjson.gz', 'site_20260302.ndjson.gz']);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test.run();
