import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import fs from 'node:fs';
import path from 'node:path';
import { startTestDaemon, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';
import { postEvent, request } from './helpers/http.js';

// GET /history?step=: the answer's whole body on a small known series (spellings kept, holds,
// gaps, a field missing from a bucket, the open bucket as of the clock, a late reading left
// out), step=auto's choice, and every mistake answered 422 INVALID_QUERY with its sentence.

const NOW = '2026-06-01T10:10:00.000Z';
const post = (d: TestDaemon, ts: string, data: unknown, extra: object = {}) => postEvent(d.url, { type: 'weather', ts, data, ...extra });

async function body(d: TestDaemon, query: string): Promise<string> {
  const answer = await request(d.url, `/history?${query}`);
  assert.is(answer.status, 200, answer.text);
  assert.is(answer.headers['content-type'], 'application/json');
  return answer.text;
}

const field = (first: string, last: string, min: string, max: string, count: number, mean: number, twmean: number | null, gap: number) =>
  `{"first":${first},"last":${last},"min":${min},"max":${max},"count":${count},"mean":${mean},"twmean":${twmean},"gap_s":${gap}}`;

test('a small series: the whole answer, spellings as recorded, holds and gaps, nulls, the open bucket as of the clock', async () => {
  const clock = new ManualClock(NOW);
  await withTestDaemon({ clock, flags: { maxAge: 'weather=60' } }, async (d) => {
    // raw JSON texts: the spellings 1.50, 2e0 and -0.0 must come back as they are
    const sent = [
      ['2026-06-01T10:00:30.000Z', '{"t":1.50,"w":{"s":3}}'],
      ['2026-06-01T10:01:00.000Z', '{"t":2e0}'],
      ['2026-06-01T10:01:30.000Z', '{"t":-0.0,"w":{"s":5}}'],
      ['2026-06-01T10:04:00.000Z', '{"t":4}'],
    ];
    for (const [ts, data] of sent) {
      const answer = await request(d.url, '/event', { body: `{"type":"weather","ts":"${ts}","data":${data}}`, headers: { 'content-type': 'application/json' } });
      assert.is(answer.status, 200, answer.text);
    }
    // a reading older than the last one is late: left out of the rollups (docs/rollups.md)
    assert.is((await post(d, '2026-06-01T10:00:00.000Z', { t: 100 })).status, 200);
    const text = await body(d, 'type=weather&step=1m&from=2026-06-01T10:00:00Z&to=2026-06-01T10:06:00Z');
    assert.is(text, '{"type":"weather","step":"1m","from":"2026-06-01T10:00:00.000Z","to":"2026-06-01T10:06:00.000Z","fields":["data.t","data.w.s"],"buckets":[' +
      `{"start":"2026-06-01T10:00:00.000Z","end":"2026-06-01T10:01:00.000Z","fields":{"data.t":${field('1.50', '1.50', '1.50', '1.50', 1, 1.5, 1.5, 30)},"data.w.s":${field('3', '3', '3', '3', 1, 3, 3, 30)}}},` +
      // t: 2 for 30 s, then -0 for 30 s; w.s: 3 held to 10:01:30 (its 60 s max age), then 5
      `{"start":"2026-06-01T10:01:00.000Z","end":"2026-06-01T10:02:00.000Z","fields":{"data.t":${field('2e0', '-0.0', '-0.0', '2e0', 2, 1, 1, 0)},"data.w.s":${field('5', '5', '5', '5', 1, 5, 4, 0)}}},` +
      // t: -0 held to 10:02:30 (60 s), then nothing until 4 at 10:04; w.s has no reading: null
      `{"start":"2026-06-01T10:04:00.000Z","end":"2026-06-01T10:05:00.000Z","fields":{"data.t":${field('4', '4', '4', '4', 1, 4, 4, 0)},"data.w.s":null}}]}`);
    // the open bucket as of the clock: at 10:04:20 it has been covered 20 s of 60
    clock.set('2026-06-01T10:04:20.000Z');
    const open = JSON.parse(await body(d, 'type=weather&step=1m&from=2026-06-01T10:04:00Z&to=2026-06-01T10:05:00Z&fields=data.t'));
    assert.equal(open.buckets, [{ start: '2026-06-01T10:04:00.000Z', end: '2026-06-01T10:05:00.000Z', fields: { 'data.t': { first: 4, last: 4, min: 4, max: 4, count: 1, mean: 4, twmean: 4, gap_s: 0 } } }]);
    clock.set(NOW);
    // the hour, still open at 10:10: 600 s so far; t held 10:00:30-10:02:30 and 10:04-10:05, w.s 10:00:30-10:02:30
    const hour = JSON.parse(await body(d, 'type=weather&step=1h&from=2026-06-01T10:00:00Z&to=2026-06-01T11:00:00Z'));
    assert.equal([hour.buckets[0].fields['data.t'].gap_s, hour.buckets[0].fields['data.w.s'].gap_s], [600 - 180, 600 - 120]);
    assert.is((await request(d.url, '/rollups/rebuild', { method: 'POST' })).text, '{"rebuilt":true,"late":1}');
    assert.is(await body(d, 'type=weather&step=1m&from=2026-06-01T10:00:00Z&to=2026-06-01T10:06:00Z'), text);
  });
});

test('step=auto picks the coarsest tier giving at least width buckets; a type with no rollup answers no buckets', async () => {
  const clock = new ManualClock(NOW);
  await withTestDaemon({ clock }, async (d) => {
    assert.is((await post(d, '2026-06-01T10:00:30.000Z', 7)).status, 200);
    const rows: [string, string][] = [
      ['from=2026-05-01T12:00:00Z&to=2026-06-01T12:00:00Z&width=31', 'night'],
      ['from=2026-05-01T12:00:00Z&to=2026-06-01T12:00:00Z&width=32', '1h'],
      ['from=2026-06-01T00:00:00Z&to=2026-06-01T12:00:00Z&width=48', '15m'],
      ['from=2026-06-01T00:00:00Z&to=2026-06-01T12:00:00Z&width=49', '1m'],
      ['from=2026-06-01T10:00:00Z&to=2026-06-01T10:01:00Z&width=1000', '1m'],
    ];
    for (const [query, step] of rows) assert.is(JSON.parse(await body(d, `type=weather&step=auto&${query}`)).step, step, query);
    assert.is(await body(d, 'type=nothing&step=1h&from=2026-06-01T00:00:00Z&to=2026-06-01T12:00:00Z'),
      '{"type":"nothing","step":"1h","from":"2026-06-01T00:00:00.000Z","to":"2026-06-01T12:00:00.000Z","fields":[],"buckets":[]}');
    // without from: from the type's first reading; without to: now
    assert.is(await body(d, 'type=weather&step=1h&fields=data'), '{"type":"weather","step":"1h","from":"2026-06-01T10:00:30.000Z","to":"2026-06-01T10:10:00.000Z",' +
      `"fields":["data"],"buckets":[{"start":"2026-06-01T10:00:00.000Z","end":"2026-06-01T11:00:00.000Z","fields":{"data":${field('7', '7', '7', '7', 1, 7, 7, 30)}}}]}`);
  });
});

test('mistakes: 422 INVALID_QUERY with one sentence naming the parameter; without step, /history is unchanged', async () => {
  await withTestDaemon({}, async (d) => {
    const rows: [string, string][] = [
      ['type=a&step=2m', 'step must be auto, 1m, 15m, 1h or night; got "2m".'],
      ['step=1h', 'step needs exactly one type (type=weather): a rollup is one type\'s buckets.'],
      ['type=a,b&step=1h', 'step needs exactly one type (type=weather): a rollup is one type\'s buckets.'],
      ['type=a&step=1h&width=10', 'width is taken only with step=auto.'],
      ['type=a&step=auto&width=0', 'width must be a whole number from 1 to 10000; got "0".'],
      ['type=a&step=auto&width=10001', 'width must be a whole number from 1 to 10000; got "10001".'],
      ['type=a&step=1h&fields=temp', 'fields must be a comma-separated list of data fields such as data.temp,data.wind.speed; got "temp".'],
      ['type=a&step=1h&fields=data..x', 'fields must be a comma-separated list of data fields such as data.temp,data.wind.speed; got "data..x".'],
      ['type=a&step=1h&fields=data.x,data.x', 'fields names a field more than once.'],
      ['type=a&step=1h&run=site', 'run is not taken with step: a rollup answers one type\'s buckets over from..to.'],
      ['type=a&step=1h&limit=5', 'limit is not taken with step: a rollup answers one type\'s buckets over from..to.'],
      ['type=a&step=1h&cursor=site:0', 'cursor is not taken with step: a rollup answers one type\'s buckets over from..to.'],
      ['type=a&step=1h&step=1m', 'step is given more than once.'],
      ['type=a&width=5', 'width is taken only with step.'],
      ['type=a&fields=data.a', 'fields is taken only with step.'],
      ['type=a&step=1m&from=2026-01-01T00:00:00Z&to=2026-06-01T00:00:00Z',
        'step 1m over 2026-01-01T00:00:00.000Z..2026-06-01T00:00:00.000Z spans 217440 buckets, more than 150000; use a coarser step or a shorter span.'],
      ['type=a&step=1h&from=2026-06-01T00:00:00Z&to=2026-05-01T00:00:00Z', 'from (2026-06-01T00:00:00.000Z) is after to (2026-05-01T00:00:00.000Z).'],
    ];
    for (const [query, detail] of rows) {
      const answer = await request(d.url, `/history?${query}`);
      assert.equal([answer.status, answer.json], [422, { detail, code: 'INVALID_QUERY' }], query);
    }
    assert.equal((await request(d.url, '/history?type=a')).json, { events: [], next_cursor: null });
  });
});

test('types with unusual names keep their rollups across a restart (__proto__, a space, a slash, 256 characters)', async () => {
  const dir = tempDir();
  const clock = new ManualClock(NOW);
  const types = ['__proto__', 'dome status', 'a/b', '..', 'x'.repeat(256)];
  let d = await startTestDaemon({ siteDir: dir, clock });
  try {
    for (const type of types) assert.is((await postEvent(d.url, { type, ts: '2026-06-01T10:00:30.000Z', data: { v: 1.0 } })).status, 200);
    const query = (type: string) => `type=${encodeURIComponent(type)}&step=1h&from=2026-06-01T10:00:00Z&to=2026-06-01T11:00:00Z`;
    const before = [];
    for (const type of types) before.push(await body(d, query(type)));
    assert.ok(before.every((text) => text.includes('"data.v":{"first":1,"last":1,')), before.join('\n'));
    await d.close();
    d = await startTestDaemon({ siteDir: dir, clock });
    for (const [i, type] of types.entries()) assert.is(await body(d, query(type)), before[i], type);
  } finally {
    await d.close();
    removeDir(dir);
  }
});

test('a tier line edited on disk (a first that is no number) is left out: the answer stays JSON', async () => {
  const dir = tempDir();
  const clock = new ManualClock(NOW);
  let d = await startTestDaemon({ siteDir: dir, clock });
  try {
    for (const ts of ['2026-06-01T10:00:30.000Z', '2026-06-01T10:01:30.000Z', '2026-06-01T10:02:30.000Z']) assert.is((await post(d, ts, { t: 7 })).status, 200);
    await d.close();
    const file = path.join(dir, '.meridian', 'rollups', '1m', 'weather.ndjson');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    assert.is(lines.length, 3);
    // the same length (the checkpoint's), a bracket for a digit: `"first":[`
    fs.writeFileSync(file, [lines[0]!.replace('"first":7', '"first":['), lines[1], ''].join('\n'));
    d = await startTestDaemon({ siteDir: dir, clock });
    const answer = JSON.parse(await body(d, 'type=weather&step=1m&from=2026-06-01T10:00:00Z&to=2026-06-01T10:03:00Z'));
    assert.equal(answer.buckets.map((b: { start: string }) => b.start), ['2026-06-01T10:01:00.000Z', '2026-06-01T10:02:00.000Z']);
  } finally {
    await d.close();
    removeDir(dir);
  }
});

test('--rollups off: nothing is kept; step and the rebuild answer 409 ROLLUPS_OFF; /history without step as always', async () => {
  await withTestDaemon({ flags: { rollups: 'off' } }, async (d) => {
    assert.is((await post(d, '2026-06-01T10:00:30.000Z', 7)).status, 200);
    const off = { detail: 'This daemon runs with --rollups off: it keeps no rollups (start it with --rollups on).', code: 'ROLLUPS_OFF' };
    for (const [method, url] of [['GET', '/history?type=weather&step=1h'], ['POST', '/rollups/rebuild']] as const) {
      const answer = await request(d.url, url, { method });
      assert.equal([answer.status, answer.json], [409, off], url);
    }
    assert.is((await request(d.url, '/history?type=weather')).json.events.length, 1);
    await d.close();
    assert.not.ok(fs.existsSync(path.join(d.siteDir, '.meridian', 'rollups')));
  });
});

test.run();
