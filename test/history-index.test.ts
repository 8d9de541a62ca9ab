import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The history index is a cache beside the files: saved under .meridian/index, used after a
// restart, and rebuilt when the file no longer matches it. Answers never depend on it.

const START = Date.parse('2026-03-16T12:00:00.000Z');
const TYPES = ['weather', 'dome', 'mount', 'power'];

/** A site day file of `n` lines, one a second, the types in turn (written as the daemon would). */
function writeDay(siteDir: string, n: number, firstData = 0): string {
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) {
    lines.push(JSON.stringify({ seq: i, ts: new Date(START + i * 1000).toISOString(), type: TYPES[i % 4], data: { v: i === 1 ? firstData : i, pad: 'p'.repeat(100) }, meta: {} }));
  }
  const file = path.join(siteDir, 'site_20260316.ndjson');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function dataOf(url: string, query: string): Promise<number[]> {
  const answer = await request(url, `/history${query}`);
  assert.is(answer.status, 200, answer.text);
  return answer.json.events.map((e: { data: { v: number } }) => e.data.v);
}

test('an index is saved for a large file, used after a restart, and rebuilt when the file changed under it', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock('2026-03-17T10:00:00.000Z');
  try {
    const file = writeDay(siteDir, 40_000); // ~6.5 MB: ~100 blocks
    const window = '?type=dome&from=2026-03-16T12:10:00.000Z&to=2026-03-16T12:11:00.000Z';
    const expected = Array.from({ length: 60 }, (_, i) => 601 + i).filter((i) => i % 4 === 1);
    let d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    try {
      assert.equal(await dataOf(d.url, window), expected);
      assert.equal(await dataOf(d.url, '?type=power&limit=3'), [3, 7, 11]);
    } finally {
      await d.close();
    }
    const saved = fs.readdirSync(path.join(siteDir, '.meridian', 'index'));
    assert.is(saved.length, 1);
    assert.is(JSON.parse(fs.readFileSync(path.join(siteDir, '.meridian', 'index', saved[0]!), 'utf8')).file, file);
    // the same file: the saved index answers
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    try {
      assert.equal(await dataOf(d.url, window), expected);
    } finally {
      await d.close();
    }
    // the file rewritten with other content: the saved index no longer matches and is rebuilt
    writeDay(siteDir, 20_000, 777);
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    try {
      assert.equal(await dataOf(d.url, '?limit=1'), [777]);
      assert.equal(await dataOf(d.url, window), expected);
      assert.equal((await request(d.url, '/history?from=2026-03-16T17:33:20.000Z')).json.events.length, 1);
    } finally {
      await d.close();
    }
  } finally {
    removeDir(siteDir);
  }
});

test('lines that are no envelope are skipped; a type with quotes and backslashes is read exactly', async () => {
  const siteDir = tempDir();
  try {
    const odd = 'say "hi" \\ there';
    const lines = [
      JSON.stringify({ seq: 1, ts: '2026-03-16T12:00:01.000Z', type: odd, data: 1, meta: {} }),
      'not json',
      // the original service's lines: another key first, an offset in ts
      JSON.stringify({ stream: 'site', seq: 2, ts: '2026-03-16T13:00:02+01:00', type: 'weather', data: 2, meta: {} }),
    ];
    fs.writeFileSync(path.join(siteDir, 'site_20260316.ndjson'), `${lines.join('\n')}\n`);
    const d = await startTestDaemon({ siteDir, clock: new ManualClock('2026-03-17T10:00:00.000Z'), env: { TZ: 'UTC' } });
    try {
      const all = await request(d.url, '/history');
      assert.equal(all.json.events.map((e: { data: number }) => e.data), [1, 2]);
      assert.is(all.text, `{"events":[${lines[0]},${lines[2]}],"next_cursor":null}`);
      assert.equal((await request(d.url, `/history?type=${encodeURIComponent(odd)}`)).json.events.map((e: { data: number }) => e.data), [1]);
      assert.equal((await request(d.url, '/history?from=2026-03-16T12:00:02.000Z')).json.events.map((e: { data: number }) => e.data), [2]);
    } finally {
      await d.close();
    }
  } finally {
    removeDir(siteDir);
  }
});

test('a day compressed by retention (.gz) is read as it is, in its place in the record order', async () => {
  const siteDir = tempDir();
  try {
    const line = (seq: number, day: string, type: string) => JSON.stringify({ seq, ts: `2026-03-${day}T20:00:0${seq}.000Z`, type, data: seq, meta: {} });
    fs.writeFileSync(path.join(siteDir, 'site_20260315.ndjson.gz'), zlib.gzipSync(`${[line(1, '15', 'a'), line(2, '15', 'b')].join('\n')}\n`));
    fs.writeFileSync(path.join(siteDir, 'site_20260316.ndjson'), `${[line(3, '16', 'a'), line(4, '16', 'b')].join('\n')}\n`);
    const d = await startTestDaemon({ siteDir, clock: new ManualClock('2026-03-17T10:00:00.000Z'), env: { TZ: 'UTC' } });
    try {
      assert.equal((await request(d.url, '/history')).json.events.map((e: { seq: number }) => e.seq), [1, 2, 3, 4]);
      assert.equal((await request(d.url, '/history?type=a')).json.events.map((e: { seq: number }) => e.seq), [1, 3]);
      const page = await request(d.url, '/history?limit=1&cursor=site:1');
      assert.equal([page.json.events.map((e: { seq: number }) => e.seq), page.json.next_cursor], [[2], 'site:2']);
    } finally {
      await d.close();
    }
  } finally {
    removeDir(siteDir);
  }
});

test.run();
