import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { request } from './helpers/http.js';
import { answerChecker } from './helpers/openapi.js';
import { SseReader } from './helpers/sse.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Data with one run id's seqs repeated in two segments (the original service's layout: every
// night's run is 001 in runs/<sequence id>, its seq starting at 1; hostile C finding 4): a
// cursor inside a repeated seq names its segment (run:001:2@1), so paging and stream resume
// meet every event once.

const line = (seq: number, ts: string, type: string, meta = '{}') => `{"seq":${seq},"ts":"${ts}","type":"${type}","data":${seq},"meta":${meta}}\n`;
const RUN = '{"run_id":"001"}';

function originalNights(siteDir: string): string[] {
  const site = [1, 2, 3, 4].map((seq) => line(seq, `2026-03-16T1${seq}:00:00.000Z`, 'power'));
  const night = (hour: number) => [1, 2, 3].map((seq) => line(seq, `2026-03-16T${hour}:0${seq}:00.000Z`, 'camera', RUN));
  fs.writeFileSync(path.join(siteDir, 'site_20260316.ndjson'), site.join(''));
  for (const [dir, hour] of [['S1', 12], ['S2', 13]] as const) {
    fs.mkdirSync(path.join(siteDir, 'runs', dir), { recursive: true });
    fs.writeFileSync(path.join(siteDir, 'runs', dir, 'telemetry.ndjson'), night(hour).join(''));
  }
  return ['site:1', 'site:2', '001:1', '001:2', '001:3', 'site:3', '001:1', '001:2', '001:3', 'site:4'];
}

const idOf = (e: any) => `${e.meta.run_id ?? 'site'}:${e.seq}`;

async function paged(d: TestDaemon, limit: number): Promise<{ ids: string[]; cursors: (string | null)[] }> {
  const ids: string[] = [];
  const cursors: (string | null)[] = [];
  for (let cursor: string | null = ''; cursor !== null;) {
    const page: any = (await request(d.url, `/history?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json;
    ids.push(...page.events.map(idOf));
    cursor = page.next_cursor;
    cursors.push(cursor);
  }
  return { ids, cursors };
}

test('a run id repeated with repeated seqs: every page size meets every event once; cursors name the segment only where the seq repeats', async () => {
  const siteDir = tempDir();
  const all = originalNights(siteDir);
  const d = await startTestDaemon({ siteDir, clock: new ManualClock('2026-03-17T20:00:00.000Z') });
  try {
    assert.equal((await request(d.url, '/history?limit=10000')).json.events.map(idOf), all);
    for (const limit of [1, 2, 3, 7]) assert.equal((await paged(d, limit)).ids, all, `limit ${limit}`);
    assert.equal((await paged(d, 3)).cursors, ['run:001:1@1', 'site:3', 'run:001:3@2', null]);
    assert.equal((await paged(d, 5)).cursors, ['run:001:3@1', 'site:4', null]);
    const check = answerChecker((await request(d.url, '/openapi.json')).json as OpenAPIObject);
    check('GET', '/history?limit=5', await request(d.url, '/history?limit=5')); // next_cursor run:001:3@1 is a documented cursor
    assert.equal((await request(d.url, `/history?cursor=${encodeURIComponent('run:001:2@1')}`)).json.events.map(idOf), all.slice(4));
    assert.equal((await request(d.url, '/history?cursor=run:001:2')).json.events.map(idOf), all.slice(8), 'without @: the latest segment');
    const bad = await request(d.url, `/history?cursor=${encodeURIComponent('run:001:2@3')}`);
    assert.equal([bad.status, bad.json], [422, { code: 'INVALID_CURSOR',
      detail: 'cursor run:001:2@3 names no recorded event of this site directory (segment 3 of run 001 holds no seq 2).' }]);
    const stream = new SseReader(d.url, '/stream?since=site:0');
    try {
      await stream.until('the live marker', () => stream.named('live').length === 1);
      assert.equal(stream.named('replay').map((f) => f.id),
        ['site:1', 'site:2', 'run:001:1@1', 'run:001:2@1', 'run:001:3@1', 'site:3', 'run:001:1@2', 'run:001:2@2', 'run:001:3@2', 'site:4']);
    } finally {
      stream.close();
    }
    const resumed = new SseReader(d.url, `/stream?since=${encodeURIComponent('run:001:3@1')}`);
    try {
      await resumed.until('the live marker', () => resumed.named('live').length === 1);
      assert.equal(resumed.named('replay').map((f) => f.id), ['site:3', 'run:001:1@2', 'run:001:2@2', 'run:001:3@2', 'site:4']);
    } finally {
      resumed.close();
    }
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test.run();
