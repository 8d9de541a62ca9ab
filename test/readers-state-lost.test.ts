import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';
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

// [name, what is removed while the daemon is stopped, whether the record order is kept (runs.json tells where each start began)]
const AGAIN_ROWS: [string, (siteDir: string) => void, boolean][] = [
  ['the timeline deleted', (siteDir) => fs.rmSync(path.join(siteDir, '.meridian', 'timeline.ndjson')), true],
  ['the timeline damaged', (siteDir) => fs.writeFileSync(path.join(siteDir, '.meridian', 'timeline.ndjson'), 'xx\n'), true],
  ['.meridian/ deleted', (siteDir) => fs.rmSync(path.join(siteDir, '.meridian'), { recursive: true }), false],
];

for (const [name, lose, ordered] of AGAIN_ROWS) {
  for (const second of ['s1', 's2']) {
    test(`${name}, run s1 and then ${second} started on one directory: every event served once${ordered ? ', in the same order' : ''}`, async () => {
      const siteDir = tempDir();
      const clock = new ManualClock(NOW);
      let d = await startTestDaemon({ siteDir, clock });
      const post = async (type: string) => {
        clock.advance(1000);
        assert.is((await postEvent(d.url, { type, data: 1 })).status, 200);
      };
      let before: string[];
      try {
        await post('a');
        for (const run of ['s1', second]) {
          clock.advance(1000);
          assert.is((await request(d.url, '/run/start', { body: { run_id: run, run_dir: 's1' } })).status, 200);
          await post('cam');
          await post('cam');
          await request(d.url, '/run/stop', { method: 'POST' });
          await post('a');
        }
        before = (await request(d.url, '/history')).json.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`);
        assert.equal(before, ['site:1', 's1:1', 's1:2', 'site:2', `${second}:3`, `${second}:4`, 'site:3']);
      } finally {
        await d.close();
      }
      lose(siteDir);
      d = await startTestDaemon({ siteDir, clock });
      try {
        const after = (await request(d.url, '/history')).json.events.map((e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`);
        assert.equal(ordered ? after : [...after].sort(), ordered ? before : [...before].sort());
        const stream = new SseReader(d.url, '/stream?since=site:1');
        try {
          await stream.live();
          assert.is(stream.named('replay').length, 6, 'each event after site:1 replayed once');
        } finally {
          stream.close();
        }
      } finally {
        await d.close();
        removeDir(siteDir);
      }
    });
  }
}

test.run();
