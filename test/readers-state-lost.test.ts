import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// With `.meridian/` lost, runs do not vanish from /history (issue 23): the timeline is rebuilt
// from the run files found under the site directory, by the time of their first line.

const NOW = '2026-03-17T20:00:00.000Z';

// [name, what is removed while the daemon is stopped]
const ROWS: [string, (siteDir: string) => void][] = [
  ['.meridian/ deleted', (siteDir) => fs.rmSync(path.join(siteDir, '.meridian'), { recursive: true })],
  ['the timeline deleted', (siteDir) => fs.rmSync(path.join(siteDir, '.meridian', 'timeline.ndjson'))],
];

for (const [name, lose] of ROWS) {
  test(`${name}: /history gives the same events in the same order, runs included`, async () => {
    const siteDir = tempDir();
    const clock = new ManualClock(NOW);
    const post = async (type: string) => {
      clock.advance(1000);
      assert.is((await postEvent(d.url, { type, data: 1 })).status, 200);
    };
    let d = await startTestDaemon({ siteDir, clock });
    let before: string;
    try {
      await post('a');
      await post('a');
      for (const run of ['r1', 'r2']) {
        clock.advance(1000);
        await request(d.url, '/run/start', { body: { run_id: run } });
        await post('cam');
        await post('cam');
        await request(d.url, '/run/stop', { method: 'POST' });
        await post('a');
      }
      before = (await request(d.url, '/history')).text;
    } finally {
      await d.close();
    }
    lose(siteDir);
    d = await startTestDaemon({ siteDir, clock });
    try {
      const after = await request(d.url, '/history');
      assert.equal(after.json.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`),
        ['site:1', 'site:2', 'r1:1', 'r1:2', 'site:3', 'r2:1', 'r2:2', 'site:4']);
      assert.is(after.text, before);
      assert.equal((await request(d.url, '/history?run=r2')).json.events.map((e: any) => e.seq), [1, 2]);
      assert.is(d.logs.filter((l) => l.includes('the timeline was lost: rebuilt from 2 run file(s) by the time of their first line (r1, r2)')).length, 1);
      // the next run start is journaled after the rebuilt ones
      await request(d.url, '/run/start', { body: { run_id: 'r3' } });
      await post('cam');
      assert.equal((await request(d.url, '/history?cursor=site:4')).json.events.map((e: any) => e.meta.run_id), ['r3']);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test.run();
