import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The site seq never restarts (issue 23): with the day files moved away while the daemon was
// stopped, the next seq continues after the highest one `.meridian/` recorded, so a sink does
// not drop new events as duplicates and a stream resume at the old head is not refused.

const NOW = '2026-03-17T20:00:00.000Z';

// [name, what is left of .meridian/ besides the files being moved away, next seq]
const ROWS: [string, (stateDir: string) => void, number][] = [
  ['the snapshot', () => {}, 4],
  ['site-seq.json, the snapshot removed', (stateDir) => fs.rmSync(path.join(stateDir, 'snapshot.json')), 4],
];

for (const [name, damage, next] of ROWS) {
  test(`day files moved away while stopped; ${name} says how far the seq went`, async () => {
    const siteDir = tempDir();
    const moved = tempDir();
    const clock = new ManualClock(NOW);
    const first = await startTestDaemon({ siteDir, clock });
    try {
      await postEvent(first.url, { type: 'a', data: 1 });
      await request(first.url, '/run/start', { body: { run_id: 'r1' } });
      await postEvent(first.url, { type: 'cam', data: 1 });
      await request(first.url, '/run/stop', { method: 'POST' });
      await postEvent(first.url, { type: 'a', data: 2 });
      assert.is((await postEvent(first.url, { type: 'a', data: 3 })).json.seq, 3);
    } finally {
      await first.close();
    }
    for (const name of fs.readdirSync(siteDir).filter((n) => n.startsWith('site_'))) fs.renameSync(path.join(siteDir, name), path.join(moved, name));
    damage(path.join(siteDir, '.meridian'));
    const again = await startTestDaemon({ siteDir, clock });
    try {
      assert.equal((await request(again.url, '/history?cursor=site:3')).json, { events: [], next_cursor: null });
      assert.is((await postEvent(again.url, { type: 'a', data: 4 })).json.seq, next);
      assert.is(again.logs.filter((l) => l.includes('the site files hold seqs up to 0, but seq 3 was recorded')).length, 1);
    } finally {
      await again.close();
      removeDir(siteDir);
      removeDir(moved);
    }
  });
}

test.run();
