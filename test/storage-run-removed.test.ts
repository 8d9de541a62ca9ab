import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A stopped run's file deleted by retention is no missing file, even for a read or an indexing
// begun before the deletion (hostile C finding 12); a missing run .gz put back clears it from
// /status as a plain file put back does (finding 14).

const NOW = '2026-03-17T20:00:00.000Z';
const MISSING = 'missing (ENOENT): the run file was moved away or deleted; its events are not served';

/** A site directory with site:1, run r1's r1:1 and r1:2, site:2; its run file's path. */
async function recorded(siteDir: string, clock: ManualClock): Promise<string> {
  const d = await startTestDaemon({ siteDir, clock });
  try {
    assert.is((await postEvent(d.url, { type: 'a', data: 1 })).status, 200);
    await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    for (const data of [1, 2]) assert.is((await postEvent(d.url, { type: 'cam', data })).status, 200);
    await request(d.url, '/run/stop', { method: 'POST' });
    assert.is((await postEvent(d.url, { type: 'a', data: 2 })).status, 200);
  } finally {
    await d.close();
  }
  return path.join(siteDir, 'r1', 'telemetry.ndjson');
}

async function idsOf(d: TestDaemon, query: string): Promise<{ ids: string[]; damaged: unknown }> {
  const body = (await request(d.url, `/history${query}`)).json;
  return { ids: body.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`), damaged: body.damaged };
}

for (const compressed of [false, true]) {
  test(`retention deleting a stopped run's ${compressed ? '.gz' : 'plain file'} at start is not reported missing (log, /status, /history)`, async () => {
    const siteDir = tempDir();
    const clock = new ManualClock(NOW);
    const file = await recorded(siteDir, clock);
    const stored = compressed ? `${file}.gz` : file;
    if (compressed) {
      fs.writeFileSync(stored, zlib.gzipSync(fs.readFileSync(file)));
      fs.rmSync(file);
    }
    const old = new Date(Date.parse(NOW) - 10 * 86_400_000);
    fs.utimesSync(stored, old, old);
    const { size } = fs.statSync(stored);
    const d = await startTestDaemon({ siteDir, clock, flags: { retain: '2d' } });
    try {
      await d.daemon.housekeeping!.runOnce();
      assert.is(fs.existsSync(stored), false);
      assert.equal(await idsOf(d, ''), { ids: ['site:1', 'site:2'], damaged: undefined });
      assert.equal(await idsOf(d, '?run=r1'), { ids: [], damaged: undefined });
      assert.is((await request(d.url, '/status')).json.damaged, undefined);
      assert.equal(d.logs.filter((l) => l.includes(file)).map((l) => l.slice(25)), [`INFO retention: deleted ${stored} (${size} bytes)`]);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test('a missing run .gz put back leaves /status and /history as a plain file put back does', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock(NOW);
  const file = await recorded(siteDir, clock);
  const away = path.join(siteDir, 'away.gz');
  fs.writeFileSync(away, zlib.gzipSync(fs.readFileSync(file)));
  fs.rmSync(file);
  const d = await startTestDaemon({ siteDir, clock });
  try {
    assert.equal(await idsOf(d, '?run=r1'), { ids: [], damaged: [{ file, reason: MISSING }] });
    assert.equal((await request(d.url, '/status')).json.damaged, [{ file, reason: MISSING }]);
    fs.renameSync(away, `${file}.gz`);
    assert.equal(await idsOf(d, '?run=r1'), { ids: ['r1:1', 'r1:2'], damaged: undefined });
    assert.is((await request(d.url, '/status')).json.damaged, undefined);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test.run();
