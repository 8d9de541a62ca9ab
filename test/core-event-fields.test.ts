import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { withRestarts } from './helpers/restart.js';

// The event fields of the newer PANOPTES clients: store_permanently (ephemeral readings)
// and the caller's ts (docs/http-api.md, POST /event).

const T0 = '2026-03-17T20:05:48.955Z';
const SITE_FILE = 'site_20260317.ndjson';

function withDaemon(fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, flags: { verbose: true } }, (d) => fn(d, clock));
}

const fileText = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '<none>');

// [name, ts as sent, the envelope's ts]
const TS_ACCEPTED: Array<[string, string | null, string]> = [
  ['the stored form', '2026-03-18T00:05:48.955Z', '2026-03-18T00:05:48.955Z'],
  ['no fraction', '2026-03-18T00:05:48Z', '2026-03-18T00:05:48.000Z'],
  ['microseconds are cut to milliseconds', '2026-03-18T00:05:48.955999Z', '2026-03-18T00:05:48.955Z'],
  ['a positive offset', '2026-03-18T01:05:48.955+01:00', '2026-03-18T00:05:48.955Z'],
  ['a negative offset without a colon', '2026-03-17T21:05:48.955-0300', '2026-03-18T00:05:48.955Z'],
  ['+00:00, as Python isoformat() writes it', '2026-03-18T00:05:48.955+00:00', '2026-03-18T00:05:48.955Z'],
  ['a lower-case z', '2026-03-18t00:05:48.955z', '2026-03-18T00:05:48.955Z'],
  ['null: the daemon clock', null, T0],
  ['far in the past: the day file still follows the daemon clock', '1999-12-31T23:59:59.999Z', '1999-12-31T23:59:59.999Z'],
  ['minutes only', '2026-03-18T00:05Z', '2026-03-18T00:05:00.000Z'],
  ['an hour-only offset', '2026-03-18T01:05:48.955+01', '2026-03-18T00:05:48.955Z'],
  ['the largest offset, -23:59', '2026-03-17T00:06:48.955-23:59', '2026-03-18T00:05:48.955Z'],
  ['-00:00 (RFC 3339: UTC, offset unknown)', '2026-03-18T00:05:48.955-00:00', '2026-03-18T00:05:48.955Z'],
  ['a decimal comma', '2026-03-18T00:05:48,955Z', '2026-03-18T00:05:48.955Z'],
];

for (const [name, ts, stored] of TS_ACCEPTED) {
  test(`ts accepted: ${name}`, () => withDaemon(async (d) => {
    const answer = await postEvent(d.url, { type: 'power', data: 1, ts });
    assert.is(answer.status, 200, answer.text);
    assert.is(answer.text, `{"seq":1,"ts":"${stored}","type":"power","data":1,"meta":{}}`);
    assert.is(fileText(path.join(d.siteDir, SITE_FILE)), `${answer.text}\n`);
    assert.is((await request(d.url, '/current/power')).text, answer.text);
  }));
}

// [name, ts as sent, exact detail]
const TS_REFUSED: Array<[string, unknown, string]> = [
  ['naive (no offset)', '2026-03-18T00:05:48.955', 'ts must be an ISO-8601 date-time with Z or a UTC offset; got "2026-03-18T00:05:48.955".'],
  ['a date only', '2026-03-18', 'ts must be an ISO-8601 date-time with Z or a UTC offset; got "2026-03-18".'],
  ['a space instead of T', '2026-03-18 00:05:48Z', 'ts must be an ISO-8601 date-time with Z or a UTC offset; got "2026-03-18 00:05:48Z".'],
  ['not a date', 'yesterday', 'ts must be an ISO-8601 date-time with Z or a UTC offset; got "yesterday".'],
  ['not a real day', '2026-02-30T00:00:00.000Z',
    'ts is not a real date-time (you specified 30 (of type number) as a day, which is invalid); got "2026-02-30T00:00:00.000Z".'],
  ['hour 25', '2026-03-18T25:00:00Z', 'ts is not a real date-time (you specified 25 (of type number) as a hour, which is invalid); got "2026-03-18T25:00:00Z".'],
  ['offset +24:00', '2026-03-18T00:05:48+24:00', 'ts has an impossible UTC offset (at most 23 hours and 59 minutes either way); got "2026-03-18T00:05:48+24:00".'],
  ['offset +23:60', '2026-03-18T00:05:48+23:60', 'ts has an impossible UTC offset (at most 23 hours and 59 minutes either way); got "2026-03-18T00:05:48+23:60".'],
  ['offset -99:00', '2026-03-18T00:05:48-9900', 'ts has an impossible UTC offset (at most 23 hours and 59 minutes either way); got "2026-03-18T00:05:48-9900".'],
  ['offset +24 (hours only)', '2026-03-18T00:05:48+24', 'ts has an impossible UTC offset (at most 23 hours and 59 minutes either way); got "2026-03-18T00:05:48+24".'],
  ['an ISO week date', '2026-W12-3T00:05:48Z', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "2026-W12-3T00:05:48Z".'],
  ['an ISO week date, basic form', '2026W123T000548Z', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "2026W123T000548Z".'],
  ['an ordinal date', '2026-077T00:05:48Z', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "2026-077T00:05:48Z".'],
  ['a basic-form date and time', '20260318T000548Z', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "20260318T000548Z".'],
  ['a basic-form time', '2026-03-18T000548Z', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "2026-03-18T000548Z".'],
  ['hours only', '2026-03-18T00Z', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "2026-03-18T00Z".'],
  ['a year and month only', '2026-03T00:05:48Z', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "2026-03T00:05:48Z".'],
  ['an expanded year', '+002026-03-18T00:05:48Z', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "+002026-03-18T00:05:48Z".'],
  ['a dot without digits', '2026-03-18T00:05:48.Z', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "2026-03-18T00:05:48.Z".'],
  ['a space before the offset', '2026-03-18T00:05:48 +01:00', 'ts must be a calendar date and time, YYYY-MM-DDThh:mm[:ss[.fff]] with Z or an offset such as +01:00; got "2026-03-18T00:05:48 +01:00".'],
  ['hour 24', '2026-03-18T24:00:00Z', 'ts is not a real date-time (hour 24 is not taken; write 00 of the next day); got "2026-03-18T24:00:00Z".'],
  ['a leap second', '2026-03-18T23:59:60Z',
    'ts is not a real date-time (you specified 60 (of type number) as a second, which is invalid); got "2026-03-18T23:59:60Z".'],
  ['the last instant of 9999 west of UTC', '9999-12-31T23:59:59.999-23:59',
    'ts falls in the year 10000 in UTC (the stored ts is UTC), outside 0000 to 9999; got "9999-12-31T23:59:59.999-23:59".'],
  ['the first instant of 0000 east of UTC', '0000-01-01T00:00:00+01:00',
    'ts falls in the year -1 in UTC (the stored ts is UTC), outside 0000 to 9999; got "0000-01-01T00:00:00+01:00".'],
  ['a number', 1773792348955, 'ts must be a string (ISO-8601 with Z or a UTC offset); got number 1773792348955.'],
  ['an object', {}, 'ts must be a string (ISO-8601 with Z or a UTC offset); got an object.'],
];

for (const [name, ts, detail] of TS_REFUSED) {
  test(`ts refused: ${name} (422, nothing recorded)`, () => withDaemon(async (d) => {
    const answer = await postEvent(d.url, { type: 'power', data: 1, ts });
    assert.is(answer.status, 422);
    assert.is(answer.text, JSON.stringify({ detail, code: 'INVALID_BODY' }));
    assert.is((await postEvent(d.url, { type: 'power', data: 2 })).json.seq, 1);
  }));
}

// [name, store_permanently as sent, exact detail]
const STORE_REFUSED: Array<[string, unknown, string]> = [
  ['a string', 'false', 'store_permanently must be true or false; got string "false".'],
  ['a number', 0, 'store_permanently must be true or false; got number 0.'],
  ['null', null, 'store_permanently must be true or false; got null.'],
];

for (const [name, value, detail] of STORE_REFUSED) {
  test(`store_permanently refused: ${name}`, () => withDaemon(async (d) => {
    const answer = await postEvent(d.url, { type: 'status', data: 1, store_permanently: value });
    assert.is(answer.text, JSON.stringify({ detail, code: 'INVALID_BODY' }));
    assert.is(answer.status, 422);
  }));
}

test('ephemeral readings: a seq each, no line, current; the only gaps in the file are theirs; --verbose says so', () => withDaemon(async (d) => {
  const sent: Array<[string, boolean, boolean]> = [
    ['weather', true, true], ['weather', false, true], ['status', false, true], ['weather', true, true],
    ['status', false, false], ['camera', true, false], ['weather', false, true],
  ];
  const answers = [];
  for (const [type, permanent, current] of sent) {
    answers.push((await postEvent(d.url, { type, data: answers.length, store_permanently: permanent, make_current: current })).text);
  }
  assert.equal(answers.map((a) => JSON.parse(a).seq), [1, 2, 3, 4, 5, 6, 7]);
  assert.is(fileText(path.join(d.siteDir, SITE_FILE)), `${answers[0]}\n${answers[3]}\n${answers[5]}\n`);
  assert.is((await request(d.url, '/current?freshness=false')).text, `{"current":{"status":${answers[2]},"weather":${answers[6]}}}`);
  const debug = d.logs.filter((l) => / DEBUG event /.test(l)).map((l) => l.replace(/^\S+ /, '').replace(d.siteDir, '<site>'));
  assert.equal(debug, [
    'DEBUG event type="weather" target=site file=<site>/site_20260317.ndjson seq=1 run=-',
    'DEBUG event type="weather" target=site ephemeral (no line written) seq=2 run=-',
    'DEBUG event type="status" target=site ephemeral (no line written) seq=3 run=-',
    'DEBUG event type="weather" target=site file=<site>/site_20260317.ndjson seq=4 run=-',
    'DEBUG event type="status" target=site ephemeral (no line written) seq=5 run=- make_current=false',
    'DEBUG event type="camera" target=site file=<site>/site_20260317.ndjson seq=6 run=- make_current=false',
    'DEBUG event type="weather" target=site ephemeral (no line written) seq=7 run=-',
  ]);
  assert.equal((await request(d.url, '/status')).json.recorded, { permanent: 3, ephemeral: 4 });
}));

test('ephemeral readings survive a clean restart and a kill -9 in the view, and their seqs are never used again', () => withRestarts(async (site) => {
  let d = await site.start();
  await postEvent(d.url, { type: 'weather', data: 1 });
  const passing = await postEvent(d.url, { type: 'weather', data: 2, store_permanently: false });
  const held = await postEvent(d.url, { type: 'status', data: 3, store_permanently: false, make_current: false });
  const before = (await request(d.url, '/current?freshness=false')).text;
  assert.is(before, `{"current":{"weather":${passing.text}}}`);
  await site.kill9();

  d = await site.start();
  assert.is((await request(d.url, '/current?freshness=false')).text, before, 'after kill -9');
  const next = await postEvent(d.url, { type: 'weather', data: 4, store_permanently: false });
  assert.is(next.json.seq, held.json.seq + 1);
  await site.stop();

  d = await site.start();
  assert.is((await request(d.url, '/current?freshness=false')).text, `{"current":{"weather":${next.text}}}`, 'after a clean stop');
  assert.is((await postEvent(d.url, { type: 'weather', data: 5 })).json.seq, next.json.seq + 1);
  await site.stop();
  const files = fs.readdirSync(site.dir).filter((n) => n.startsWith('site_'));
  const lines = files.flatMap((n) => fs.readFileSync(path.join(site.dir, n), 'utf8').split('\n').filter(Boolean));
  assert.equal(lines.map((l) => JSON.parse(l).data), [1, 5], 'no ephemeral reading in any telemetry file');
}));

test('the day file follows the daemon clock, not the caller\'s ts', () =>
  withTestDaemon({ clock: new ManualClock('2026-03-18T11:59:59.000Z'), env: { TZ: 'UTC' } }, async (d) => {
    const answer = await postEvent(d.url, { type: 'power', data: 1, ts: '2026-03-18T13:00:00.000Z' });
    assert.is(fileText(path.join(d.siteDir, SITE_FILE)), `${answer.text}\n`);
    assert.not.ok(fs.existsSync(path.join(d.siteDir, 'site_20260318.ndjson')));
  }));

test.run();
