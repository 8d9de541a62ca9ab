import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request, type RawAnswer } from './helpers/http.js';

// One validation of an event whatever the way in: a POST /event body, an item of a JSON array
// batch and a line of an NDJSON batch are refused by the same rule with the same code and
// detail; a body that is not UTF-8 is a 422 on every body-reading path (docs/http-api.md).

const T0 = '2026-03-17T20:05:48.955Z';

function withDaemon(fn: (d: TestDaemon) => Promise<void>): Promise<void> {
  return withTestDaemon({ clock: new ManualClock(T0), env: { TZ: 'UTC' } }, fn);
}

const post = (d: TestDaemon, p: string, body: string | Buffer, type = 'application/json'): Promise<RawAnswer> =>
  request(d.url, p, { method: 'POST', body, headers: { 'content-type': type } });

const siteFiles = (d: TestDaemon) => fs.readdirSync(d.siteDir).filter((f) => f.startsWith('site_'));

// [name, one event's body text as sent, code, detail]
const REFUSED: Array<[string, string, string, string]> = [
  ['max_age_s 1e400 (infinite)', '{"type":"a","data":1,"max_age_s":1e400}', 'INVALID_MAX_AGE',
    'max_age_s must be a positive number of seconds or null; got number 1e400.'],
  ['meta.max_age_s 1e400', '{"type":"a","data":1,"meta":{"max_age_s":1e400}}', 'INVALID_MAX_AGE',
    'meta.max_age_s must be a positive number of seconds or null; got number 1e400.'],
  ['max_age_s -0', '{"type":"a","data":1,"max_age_s":-0}', 'INVALID_MAX_AGE', 'max_age_s must be a positive number of seconds or null; got number -0.'],
  ['max_age_s 1e-400 (zero as a double)', '{"type":"a","data":1,"max_age_s":1e-400}', 'INVALID_MAX_AGE',
    'max_age_s must be a positive number of seconds or null; got number 1e-400.'],
  ['ts with offset +24:00', '{"type":"a","data":1,"ts":"2026-03-18T00:05:48+24:00"}', 'INVALID_BODY',
    'ts has an impossible UTC offset (at most 23 hours and 59 minutes either way); got "2026-03-18T00:05:48+24:00".'],
  ['ts as a week date', '{"type":"a","data":1,"ts":"2026-W12-3T00:05:48Z"}', 'INVALID_BODY',
    'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "2026-W12-3T00:05:48Z".'],
  ['data nested 65 levels', `{"type":"a","data":${'['.repeat(65)}${']'.repeat(65)}}`, 'INVALID_BODY',
    'data nests 65 levels of arrays and objects; at most 64 are accepted.'],
  ['type with a control character', '{"type":"a\\u0007","data":1}', 'INVALID_BODY', 'type must not contain control characters.'],
  ['no data', '{"type":"a"}', 'INVALID_BODY', 'data is required (null counts as given).'],
  ['meta an array', '{"type":"a","data":1,"meta":[]}', 'INVALID_BODY', 'meta must be a JSON object; got an array.'],
  ['make_current a string', '{"type":"a","data":1,"make_current":"yes"}', 'INVALID_BODY', 'make_current must be true or false; got string "yes".'],
  ['not an object', '[1]', 'INVALID_BODY', 'The event must be a JSON object; got an array.'],
];

for (const [name, body, code, detail] of REFUSED) {
  test(`refused alike on every way in: ${name}`, () => withDaemon(async (d) => {
    const single = await post(d, '/event', body);
    assert.is(single.status, 422);
    assert.is(single.text, JSON.stringify({ detail, code }));
    const array = await post(d, '/events', `[{"type":"ok","data":0}, ${body}]`);
    assert.is(array.status, 422);
    assert.is(array.text, JSON.stringify({ detail: '1 of 2 event(s) are invalid; nothing was recorded.', code: 'INVALID_BATCH',
      failures: [{ index: 1, code, detail }] }));
    const ndjson = await post(d, '/events', `{"type":"ok","data":0}\n${body}\n`, 'application/x-ndjson');
    assert.is(ndjson.status, 422);
    assert.is(ndjson.text, JSON.stringify({ detail: '1 of 2 event(s) are invalid; nothing was recorded.', code: 'INVALID_BATCH',
      failures: [{ index: 1, line: 2, code, detail }] }));
    assert.equal(siteFiles(d), []);
  }));
}

const BAD_UTF8 = [
  ['a lone continuation byte', Buffer.from([0x80])],
  ['a cut two-byte character', Buffer.from([0xc3])],
  ['an overlong encoding of /', Buffer.from([0xc0, 0xaf])],
  ['a UTF-16 surrogate encoded', Buffer.from([0xed, 0xa0, 0x80])],
  ['past U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
] as const;
const inString = (bytes: Buffer, before: string, after: string) => Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]);
const NOT_UTF8 = JSON.stringify({ detail: 'The body is not valid UTF-8 text; send it encoded as UTF-8.', code: 'INVALID_ENCODING' });

for (const [name, bytes] of BAD_UTF8) {
  test(`invalid UTF-8 (${name}) is 422 INVALID_ENCODING on every body, nothing recorded`, () => withDaemon(async (d) => {
    const event = await post(d, '/event', inString(bytes, '{"type":"a","data":"', '"}'));
    assert.is(`${event.status} ${event.text}`, `422 ${NOT_UTF8}`);
    const array = await post(d, '/events', inString(bytes, '[{"type":"a","data":"', '"}]'));
    assert.is(`${array.status} ${array.text}`, `422 ${NOT_UTF8}`);
    const start = await post(d, '/run/start', inString(bytes, '{"meta":{"who":"', '"}}'));
    assert.is(`${start.status} ${start.text}`, `422 ${NOT_UTF8}`);
    const lines = Buffer.concat([Buffer.from('{"type":"ok","data":1}\n'), inString(bytes, '{"type":"a","data":"', '"}\n')]);
    const ndjson = await post(d, '/events?partial=true', lines, 'application/x-ndjson');
    assert.is(ndjson.status, 422);
    assert.equal(ndjson.json, { detail: '1 of 2 event(s) were recorded; the 1 invalid one(s) listed in failures were not.',
      code: 'BATCH_PARTLY_RECORDED', recorded: 1, first_seq: 1, last_seq: 1, run_id: null, recorded_indexes: [0],
      failures: [{ index: 1, line: 2, code: 'INVALID_ENCODING', detail: 'Line 2 is not valid UTF-8 text; send it encoded as UTF-8.' }] });
    assert.is(fs.readFileSync(path.join(d.siteDir, siteFiles(d)[0]!), 'utf8'),
      '{"seq":1,"ts":"2026-03-17T20:05:48.955Z","type":"ok","data":1,"meta":{}}\n');
    assert.is((await request(d.url, '/run')).status, 404);
  }));
}

// [from as sent (URL-encoded), the answer]: /history reads a time by the rule of an event's ts
const HISTORY_FROM: Array<[string, string]> = [
  ['2026-02-30T00:00:00Z', 'from must be an ISO-8601 time with Z or an offset, now, or a relative time such as -2h (s, m, h, d, w); got "2026-02-30T00:00:00Z".'],
  ['2026-03-18T00:05:48%2B24:00', 'from must be an ISO-8601 time with Z or an offset, now, or a relative time such as -2h (s, m, h, d, w); got "2026-03-18T00:05:48+24:00".'],
  ['2026-03-18T24:00:00Z', 'from must be an ISO-8601 time with Z or an offset, now, or a relative time such as -2h (s, m, h, d, w); got "2026-03-18T24:00:00Z".'],
  ['2026-03-17T21:05:48%2B01', '200'],
];

test('GET /history?from= takes the spellings of an event ts, and refuses the same', () => withDaemon(async (d) => {
  for (const [from, expected] of HISTORY_FROM) {
    const answer = await request(d.url, `/history?from=${from}`);
    assert.is(answer.status === 200 ? '200' : `${answer.status} ${answer.json.code} ${answer.json.detail}`,
      expected === '200' ? '200' : `422 INVALID_QUERY ${expected}`, from);
  }
}));

test('valid UTF-8 of every length is taken as sent, also a U+FFFD the caller sent itself', () => withDaemon(async (d) => {
  const data = '"é雪🌧\uFFFD"';
  const answer = await post(d, '/event', `{"type":"a","data":${data}}`);
  assert.is(answer.text, `{"seq":1,"ts":"${T0}","type":"a","data":${data},"meta":{}}`);
}));

test.run();
