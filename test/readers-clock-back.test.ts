import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';
import { removeDir } from './helpers/tmp.js';

// The clock stepped back over noon (issue 23's file states): the earlier day's file then gets
// seqs above the later day's. /history and a stream resume still give every event once, in
// seq order, page after page.

test('history and a stream resume after the clock stepped back over noon: seq order across the day files', async () => {
  const clock = new ManualClock('2026-03-17T20:00:00.000Z');
  const d = await startTestDaemon({ clock, env: { TZ: 'UTC' } });
  try {
    for (const [at, count] of [['2026-03-17T20:00:00.000Z', 3], ['2026-03-18T13:00:00.000Z', 2], ['2026-03-17T20:30:00.000Z', 2]] as const) {
      clock.set(at);
      for (let i = 0; i < count; i++) await postEvent(d.url, { type: 'a', data: i });
    }
    assert.equal(fs.readdirSync(d.siteDir).filter((n) => n.startsWith('site_')).sort(), ['site_20260317.ndjson', 'site_20260318.ndjson']);
    const seqs = async (query: string) => {
      const page = (await request(d.url, `/history?${query}`)).json;
      return [page.events.map((e: any) => e.seq), page.next_cursor];
    };
    assert.equal(await seqs(''), [[1, 2, 3, 4, 5, 6, 7], null]);
    assert.equal(await seqs('limit=3'), [[1, 2, 3], 'site:3']);
    assert.equal(await seqs('limit=3&cursor=site:3'), [[4, 5, 6], 'site:6']);
    assert.equal(await seqs('limit=3&cursor=site:6'), [[7], null]);
    const stream = new SseReader(d.url, '/stream?since=site:2');
    try {
      await stream.until('the live marker', () => stream.named('live').length === 1);
      assert.equal(stream.named('replay').map((f) => f.id), ['site:3', 'site:4', 'site:5', 'site:6', 'site:7']);
    } finally {
      stream.close();
    }
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
});

test.run();
