import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request, type RawAnswer } from './helpers/http.js';
import { readLines } from './helpers/tmp.js';

// POST /events: JSON arrays and NDJSON, atomic by default, ?partial=true, exact seqs and files.

const T0 = '2026-03-17T20:05:48.955Z';
const TS = '2026-03-17T20:05:48.955Z';
const SITE_FILE = 'site_20260317.ndjson';

function withDaemon(fn: (d: TestDaemon) => Promise<void>, flags = {}): Promise<void> {
  return withTestDaemon({ clock: new ManualClock(T0), env: { TZ: 'UTC' }, flags }, fn);
}

const siteLines = (d: TestDaemon) => {
  const file = path.join(d.siteDir, SITE_FILE);
  return fs.existsSync(file) ? readLines(file) : [];
};
const postBatch = (d: TestDaemon, body: unknown, query = ''): Promise<RawAnswer> =>
  request(d.url, `/events${query}`, { method: 'POST', body: body as object });
const postNdjson = (d: TestDaemon, text: string, query = ''): Promise<RawAnswer> =>
  request(d.url, `/events${query}`, { method: 'POST', body: text, headers: { 'content-type': 'application/x-ndjson' } });

test('a JSON array is recorded in order: consecutive seqs, one line each, the view updated', () => withDaemon(async (d) => {
  await postEvent(d.url, { type: 'first', data: 0 });
  const answer = await postBatch(d, [
    { type: 'weather', data: { t: -3.5 } },
    { type: 'dome', data: 'open', meta: { by: 'ops' } },
    { type: 'weather', data: { t: -3.6 }, make_current: false },
  ]);
  assert.is(answer.status, 200);
  assert.is(answer.text, '{"recorded":3,"first_seq":2,"last_seq":4,"run_id":null}');
  assert.equal(siteLines(d), [
    { seq: 1, ts: TS, type: 'first', data: 0, meta: {} },
    { seq: 2, ts: TS, type: 'weather', data: { t: -3.5 }, meta: {} },
    { seq: 3, ts: TS, type: 'dome', data: 'open', meta: { by: 'ops' } },
    { seq: 4, ts: TS, type: 'weather', data: { t: -3.6 }, meta: {} },
  ]);
  assert.is((await request(d.url, '/current/weather')).json.seq, 2);
  assert.is((await postEvent(d.url, { type: 'after', data: 1 })).json.seq, 5);
}));

test('NDJSON: one event per line, CRLF and blank lines allowed', () => withDaemon(async (d) => {
  const answer = await postNdjson(d, '{"type":"a","data":1}\r\n\n{"type":"b","data":[2]}\n   \n{"type":"c","data":null}');
  assert.is(answer.status, 200);
  assert.equal(answer.json, { recorded: 3, first_seq: 1, last_seq: 3, run_id: null });
  assert.equal(siteLines(d).map((e: any) => [e.seq, e.type, e.data]), [[1, 'a', 1], [2, 'b', [2]], [3, 'c', null]]);
}));

test('NDJSON of 3,000 events with multi-byte characters: every line decoded as sent, written in order in one file', () => withDaemon(async (d) => {
  const names = ['é', '雪', '🌧', 'ü\u2028'];
  const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ type: `t${i % 7}`, data: { sky: names[i % 4]!.repeat(1 + (i % 5)), i } }));
  const answer = await postNdjson(d, `${lines.join('\n')}\n`);
  assert.equal(answer.json, { recorded: 3000, first_seq: 1, last_seq: 3000, run_id: null });
  const text = fs.readFileSync(path.join(d.siteDir, SITE_FILE), 'utf8');
  assert.is(text, lines.map((line, i) => `{"seq":${i + 1},"ts":"${TS}",${line.slice(1, -1)},"meta":{}}\n`).join(''));
  assert.equal((await request(d.url, '/current/t6')).json.data, JSON.parse(lines[2995]!).data);
}));

test('atomic by default: one invalid event and nothing is recorded, no seq consumed, each failure listed', () => withDaemon(async (d) => {
  const answer = await postNdjson(d, [
    '{"type":"ok","data":1}', '{"type":"no data"}', '{"type":"ok","data":2}', 'not json', '{"type":"","data":3}',
  ].join('\n'));
  assert.is(answer.status, 422);
  assert.equal(answer.json, {
    detail: '3 of 5 event(s) are invalid; nothing was recorded.',
    code: 'INVALID_BATCH',
    failures: [
      { index: 1, line: 2, code: 'INVALID_BODY', detail: 'data is required (null counts as given).' },
      { index: 3, line: 4, code: 'MALFORMED_JSON', detail: `The line is not valid JSON: ${jsonError('not json')}.` },
      { index: 4, line: 5, code: 'INVALID_BODY', detail: 'type must not be empty.' },
    ],
  });
  assert.equal(siteLines(d), []);
  assert.equal((await request(d.url, '/current?freshness=false')).json, { current: {} });
  assert.is((await postEvent(d.url, { type: 'ok', data: 9 })).json.seq, 1);
}));

test('?partial=true records the valid events and answers 422 BATCH_PARTLY_RECORDED with what was and was not', () => withDaemon(async (d) => {
  const answer = await postBatch(d, [{ type: 'a', data: 1 }, { data: 2 }, { type: 'b', data: 3 }, 'x', { type: 'c', data: 4 }], '?partial=true');
  assert.is(answer.status, 422);
  assert.equal(answer.json, {
    detail: '3 of 5 event(s) were recorded; the 2 invalid one(s) listed in failures were not.',
    code: 'BATCH_PARTLY_RECORDED',
    recorded: 3, first_seq: 1, last_seq: 3, run_id: null,
    recorded_indexes: [0, 2, 4],
    failures: [
      { index: 1, code: 'INVALID_BODY', detail: 'type is required.' },
      { index: 3, code: 'INVALID_BODY', detail: 'The event must be a JSON object; got string "x".' },
    ],
  });
  assert.equal(siteLines(d).map((e: any) => [e.seq, e.type]), [[1, 'a'], [2, 'b'], [3, 'c']]);
  // every event valid: the plain 200; every event invalid: nothing recorded
  assert.is((await postBatch(d, [{ type: 'd', data: 5 }], '?partial=true')).text, '{"recorded":1,"first_seq":4,"last_seq":4,"run_id":null}');
  const none = await postBatch(d, [{ data: 1 }], '?partial=1');
  assert.equal([none.status, none.json.code], [422, 'INVALID_BATCH']);
  assert.is(siteLines(d).length, 4);
}));

test('during a run: the run file, its seqs and run_id', () => withDaemon(async (d) => {
  await request(d.url, '/run/start', { body: { run_id: 'n7' } });
  const answer = await postBatch(d, [{ type: 'cam', data: 1 }, { type: 'cam', data: 2, meta: { run_id: 'other' } }]);
  assert.is(answer.text, '{"recorded":2,"first_seq":1,"last_seq":2,"run_id":"n7"}');
  assert.equal(readLines(path.join(d.siteDir, 'n7', 'telemetry.ndjson')).map((e: any) => [e.seq, e.meta]),
    [[1, { run_id: 'n7' }], [2, { run_id: 'n7' }]]);
  assert.equal(siteLines(d), []);
}));

test('--fsync always: a batch of 1,000 is one sync round', () => withDaemon(async (d) => {
  const before = d.daemon.store.syncRounds;
  const events = Array.from({ length: 1000 }, (_, i) => ({ type: `t${i % 10}`, data: i }));
  const answer = await postBatch(d, events);
  assert.equal(answer.json, { recorded: 1000, first_seq: 1, last_seq: 1000, run_id: null });
  assert.is(d.daemon.store.syncRounds - before, 1);
  const lines = siteLines(d) as { seq: number; data: number }[];
  assert.equal(lines.map((e) => e.seq), events.map((_, i) => i + 1));
  assert.equal(lines.map((e) => e.data), events.map((e) => e.data));
}, { fsync: 'always' }));

test('a batch that cannot be written: 503, nothing recorded, no seq consumed', () => withDaemon(async (d) => {
  const file = path.join(d.siteDir, SITE_FILE);
  fs.symlinkSync('/dev/full', file);
  const failed = await postBatch(d, [{ type: 'a', data: 1 }, { type: 'b', data: 2 }]);
  assert.equal([failed.status, failed.json.code], [503, 'DISK_FULL']);
  fs.unlinkSync(file);
  assert.equal((await postBatch(d, [{ type: 'a', data: 3 }])).json, { recorded: 1, first_seq: 1, last_seq: 1, run_id: null });
  assert.equal((await request(d.url, '/current?freshness=false')).json.current.b, undefined);
}));

test('refusals of the whole batch: each with its status, code and detail', () => withDaemon(async (d) => {
  const cases: [string, Promise<RawAnswer>, number, string, string][] = [
    ['an object', postBatch(d, { type: 'a', data: 1 }), 422, 'INVALID_BODY', 'A JSON batch must be an array of events; got an object (send one event to POST /event).'],
    ['an empty array', postBatch(d, []), 422, 'INVALID_BODY', 'The batch holds no events.'],
    ['blank NDJSON', postNdjson(d, '\n\n'), 422, 'INVALID_BODY', 'The batch holds no events.'],
    ['no body', request(d.url, '/events', { method: 'POST' }), 422, 'INVALID_BODY', 'The batch is empty; send a JSON array of events, or NDJSON.'],
    ['malformed JSON', request(d.url, '/events', { body: '[{', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON', `The body is not valid JSON: ${jsonError('[{')}.`],
    ['text/plain', request(d.url, '/events', { body: '[]', headers: { 'content-type': 'text/plain' } }), 415, 'UNSUPPORTED_MEDIA_TYPE',
      'A batch must be sent as Content-Type: application/json (an array) or application/x-ndjson (one event per line); got "text/plain".'],
    ['Content-Encoding gzip', request(d.url, '/events', { body: '[{"type":"a","data":1}]', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
      415, 'UNSUPPORTED_MEDIA_TYPE', 'The body must be sent uncompressed; got Content-Encoding: "gzip".'],
    ['10,001 events', postNdjson(d, '{"type":"a","data":1}\n'.repeat(10_001)), 413, 'BATCH_TOO_LARGE', 'The batch holds 10001 events; at most 10000 are taken per request.'],
    ['over --max-body', postBatch(d, [{ type: 'a', data: 'x'.repeat(300_000) }]), 413, 'BODY_TOO_LARGE', 'The body is larger than the limit of 250000 bytes.'],
    ['partial=maybe', postBatch(d, [{ type: 'a', data: 1 }], '?partial=maybe'), 422, 'INVALID_QUERY', 'partial must be true or false; got "maybe".'],
  ];
  for (const [name, pending, status, code, detail] of cases) {
    const answer = await pending;
    assert.equal([answer.status, answer.json], [status, { detail, code }], name);
  }
  assert.equal(siteLines(d), []);
}, { maxBody: 250_000 }));

/** The message JSON.parse gives for `text` on this Node. */
function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('parsed');
}

test.run();
