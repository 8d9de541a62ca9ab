import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// GET /history against the real daemon: record order across day files, runs, a noon rollover
// and a restart; filters, pages and cursors; mistakes answered 400 with a stable code.

type Env = { seq: number; ts: string; type: string; data: unknown; meta: Record<string, unknown> };

async function history(url: string, query: string): Promise<{ events: Env[]; next_cursor: string | null }> {
  const answer = await request(url, `/history${query}`);
  assert.is(answer.status, 200, answer.text);
  return answer.json;
}

/** Every page of a query, following next_cursor. */
async function allPages(url: string, query: string): Promise<{ pages: Env[][]; cursors: (string | null)[] }> {
  const pages: Env[][] = [];
  const cursors: (string | null)[] = [];
  let cursor: string | null = null;
  do {
    const page = await history(url, `${query}${cursor ? `&cursor=${cursor}` : ''}`);
    pages.push(page.events);
    cursors.push(page.next_cursor);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return { pages, cursors };
}

/** Posts a night across the Berlin noon, a run, a restart and the run started again on its directory. */
async function night(siteDir: string, clock: ManualClock): Promise<TestDaemon> {
  const env = { TZ: 'Europe/Berlin' };
  const post = (d: TestDaemon, type: string, data: unknown) => postEvent(d.url, { type, data });
  let d = await startTestDaemon({ siteDir, clock, env });
  try {
    await post(d, 'weather', 1);
    clock.set('2026-03-17T10:59:59.999Z');
    await post(d, 'dome', 'open');
    clock.set('2026-03-17T11:00:00.000Z'); // noon in Berlin: the next site day file
    await post(d, 'weather', 2);
    await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    await post(d, 'weather', 3);
    await post(d, 'camera', 'exp');
    clock.set('2026-03-17T11:30:00.000Z');
    await request(d.url, '/run/stop', { method: 'POST' });
    await post(d, 'weather', 4);
  } finally {
    await d.close();
  }
  clock.set('2026-03-17T12:00:00.000Z');
  d = await startTestDaemon({ siteDir, clock, env });
  await post(d, 'weather', 5);
  await request(d.url, '/run/start', { body: { run_id: 'r1' } });
  await post(d, 'weather', 6);
  return d;
}

const ORDER = [
  ['site', 1, 'weather', 1], ['site', 2, 'dome', 'open'], ['site', 3, 'weather', 2], ['r1', 1, 'weather', 3],
  ['r1', 2, 'camera', 'exp'], ['site', 4, 'weather', 4], ['site', 5, 'weather', 5], ['r1', 3, 'weather', 6],
];
const shape = (e: Env) => [(e.meta.run_id as string | undefined) ?? 'site', e.seq, e.type, e.data];

test('history is every line once in record order: across the noon rollover, a run, a restart and a run continued', async () => {
  const siteDir = tempDir();
  const clock = new ManualClock('2026-03-17T10:59:59.000Z');
  const d = await night(siteDir, clock);
  try {
    const all = await history(d.url, '');
    assert.equal(all.events.map(shape), ORDER);
    assert.is(all.next_cursor, null);
    // the answer holds the lines as stored, byte for byte
    const files = ['site_20260316.ndjson', 'site_20260317.ndjson', path.join('r1', 'telemetry.ndjson')];
    const stored = files.flatMap((f) => fs.readFileSync(path.join(siteDir, f), 'utf8').split('\n').filter(Boolean)).sort();
    assert.equal(all.events.map((e) => JSON.stringify(e)).sort(), stored);

    assert.equal((await history(d.url, '?type=weather')).events.map((e) => e.data), [1, 2, 3, 4, 5, 6]);
    assert.equal((await history(d.url, '?type=dome,camera')).events.map((e) => e.data), ['open', 'exp']);
    assert.equal((await history(d.url, '?type=dome&type=camera')).events.map((e) => e.data), ['open', 'exp']);
    assert.equal((await history(d.url, '?run=site')).events.map(shape), ORDER.filter(([s]) => s === 'site'));
    assert.equal((await history(d.url, '?run=r1')).events.map(shape), ORDER.filter(([s]) => s === 'r1'));
    // from inclusive, to exclusive
    const window = await history(d.url, '?from=2026-03-17T11:00:00.000Z&to=2026-03-17T12:30:00%2B01:00');
    assert.equal(window.events.map((e) => e.data), [2, 3, 'exp']);
    // relative to the daemon's clock (12:00Z): the last half hour
    assert.equal((await history(d.url, '?from=-30m')).events.map((e) => e.data), [4, 5, 6]);
    assert.equal((await history(d.url, '?to=-1h')).events.map((e) => e.data), [1, 'open']);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('pages: following next_cursor gives the same events, each once; the cursors name the last event of each page', async () => {
  const siteDir = tempDir();
  const d = await night(siteDir, new ManualClock('2026-03-17T10:59:59.000Z'));
  try {
    const { pages, cursors } = await allPages(d.url, '?limit=3');
    assert.equal(pages.flat().map(shape), ORDER);
    assert.equal(pages.map((p) => p.length), [3, 3, 2]);
    assert.equal(cursors, ['site:3', 'site:4', null]);
    const ones = await allPages(d.url, '?limit=1&type=weather');
    assert.equal(ones.pages.flat().map((e) => e.data), [1, 2, 3, 4, 5, 6]);
    assert.equal(ones.cursors, ['site:1', 'site:3', 'run:r1:1', 'site:4', 'site:5', 'run:r1:3', null]);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('pages taken while events are being written hold whole lines, each once, in seq order', () => withTestDaemon({}, async (d) => {
  const total = 300;
  const posting = (async () => {
    for (let i = 1; i <= total; i++) await postEvent(d.url, { type: i % 2 ? 'odd' : 'even', data: i });
  })();
  const seen: number[] = [];
  let cursor = 'site:0';
  for (let rounds = 0; seen.length < total && rounds < 10_000; rounds++) {
    const page = await history(d.url, `?limit=7&cursor=${cursor}`);
    for (const e of page.events) seen.push(e.data as number);
    if (page.events.length > 0) cursor = `site:${page.events.at(-1)!.seq}`;
    else await posting.catch(() => undefined); // caught up with the writer: let it go on
  }
  await posting;
  assert.equal(seen, Array.from({ length: total }, (_, i) => i + 1));
}));

// [name, query, code, detail]
const MISTAKES: [string, string, string, string][] = [
  ['an unknown parameter', '?types=a', 'INVALID_QUERY', 'unknown query parameter "types"; this path takes type, from, to, run, limit, cursor, step, width, fields.'],
  ['an empty type', '?type=a,,b', 'INVALID_QUERY', 'type must be a list of event types (1-256 characters, no control characters, comma-separated); got "".'],
  ['a time without a zone', '?from=2026-03-17T10:00:00', 'INVALID_QUERY', 'from must be an ISO-8601 time with Z or an offset, now, or a relative time such as -2h (s, m, h, d, w); got "2026-03-17T10:00:00".'],
  ['a relative time in the future', '?to=%2B2h', 'INVALID_QUERY', 'to must be an ISO-8601 time with Z or an offset, now, or a relative time such as -2h (s, m, h, d, w); got "+2h".'],
  ['from after to', '?from=-1h&to=-2h', 'INVALID_QUERY', 'from (2026-03-17T11:00:00.000Z) is after to (2026-03-17T10:00:00.000Z).'],
  ['limit 0', '?limit=0', 'INVALID_QUERY', 'limit must be a whole number from 1 to 10000; got "0".'],
  ['limit too large', '?limit=10001', 'INVALID_QUERY', 'limit must be a whole number from 1 to 10000; got "10001".'],
  ['limit twice', '?limit=1&limit=2', 'INVALID_QUERY', 'limit is given more than once.'],
  ['an unsafe run id', '?run=../x', 'INVALID_QUERY', 'run must be a run id (letters, digits, \'.\', \'_\', \'-\') or site; got "../x".'],
  ['a run never recorded', '?run=r9', 'INVALID_QUERY', 'run r9 is not in the timeline of this site directory (runs recorded before it existed are not either).'],
  ['a malformed cursor', '?cursor=12', 'INVALID_CURSOR', 'cursor "12" is not a cursor: it must be site:<seq> or run:<run id>:<seq>, such as site:1042 or run:014:17.'],
  ['a cursor past the end', '?cursor=site:9', 'INVALID_CURSOR', 'cursor site:9 is beyond the last seq recorded in the site (1).'],
  ['a cursor of an unknown run', '?cursor=run:r9:1', 'INVALID_CURSOR', 'cursor run:r9:1 names no recorded event of this site directory (no run r9 in its timeline).'],
  ['bad percent-encoding', '?type=%E0%A4%A', 'INVALID_QUERY', 'type is not valid percent-encoding: "%E0%A4%A".'],
];

test('mistakes in the query are answered 422 with a stable code and a sentence naming the parameter', () =>
  withTestDaemon({ clock: new ManualClock('2026-03-17T12:00:00.000Z') }, async (d) => {
    await postEvent(d.url, { type: 'weather', data: 1 });
    for (const [name, query, code, detail] of MISTAKES) {
      const answer = await request(d.url, `/history${query}`);
      assert.equal([answer.status, answer.json], [422, { detail, code }], name);
    }
  }));

test('a type holding a comma is asked for as %2C; the answer is empty when nothing matches', () => withTestDaemon({}, async (d) => {
  await postEvent(d.url, { type: 'a,b', data: 1 });
  await postEvent(d.url, { type: 'a', data: 2 });
  assert.equal((await history(d.url, '?type=a%2Cb')).events.map((e) => e.data), [1]);
  assert.equal((await history(d.url, '?type=a,b')).events.map((e) => e.data), [2]);
  assert.equal(await history(d.url, '?type=none'), { events: [], next_cursor: null });
}));

test.run();
