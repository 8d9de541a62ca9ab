import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';

// The alarm state machine on the real daemon, its clock moved by hand: latch, levels,
// hysteresis, debounce (`for`), auto-clear, shelve and its expiry, acknowledgement. Each
// transition is waited for as its `meridian.alarm` event on /stream; the whole list of events
// is compared at the end, so a transition too many (a flap, a debounce that did not hold) fails.

const T0 = '2026-11-24T22:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

const CONFIG = `
[[alarm]]
id = "wind"
latch = true
message = "wind high"
[[alarm.level]]
severity = "warning"
when = "weather.data.wind > 40"
clear = "weather.data.wind < 30"
[[alarm.level]]
severity = "critical"
when = "weather.data.wind > 60"
clear = "weather.data.wind < 50"

[[alarm]]
id = "temp"
severity = "serious"
when = "dome.data.t > 40"
clear = "dome.data.t < 38"
message = "dome hot"

[[alarm]]
id = "gust"
severity = "warning"
when = "mast.data.g > 40"
for = "60s"
`;

interface Harness {
  d: TestDaemon;
  clock: ManualClock;
  sse: SseReader;
  /** The data of every meridian.alarm event so far, as `id from>to severity [by]`. */
  events(): string[];
  /** Wait until `n` meridian.alarm events have arrived. */
  waitEvents(n: number): Promise<void>;
}

async function withAlarms(fn: (h: Harness) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  await withTestDaemon({ clock, config: CONFIG, freshnessIntervalMs: 5 }, async (d) => {
    const sse = new SseReader(d.url, '/stream?type=meridian.alarm&alarms=true');
    await sse.live();
    const events = () => sse.data('event').map((e) => {
      const x = e.data;
      return `${x.id} ${x.from}>${x.to} ${x.severity}${x.by ? ` ${x.by}` : ''}`;
    });
    try {
      await fn({ d, clock, sse, events, waitEvents: (n) => sse.until(`${n} alarm events`, () => events().length >= n) });
    } finally {
      sse.close();
    }
  });
}

const alarm = async (d: TestDaemon, id: string) => (await request(d.url, `/alarms/${id}`)).json;

test('latch keeps the worst severity until acknowledged; levels; the acknowledgement of a returned alarm makes it normal', () => withAlarms(async ({ d, clock, events, waitEvents }) => {
  await postEvent(d.url, { type: 'weather', data: { wind: 45 } });
  await waitEvents(1);
  clock.advance(1000);
  await postEvent(d.url, { type: 'weather', data: { wind: 65 } });
  await waitEvents(2);
  clock.advance(1000);
  // the critical level clears (below 50), the warning one holds: a latched alarm stays critical
  await postEvent(d.url, { type: 'weather', data: { wind: 45 } });
  await postEvent(d.url, { type: 'weather', data: { wind: 20 } });
  await waitEvents(3);
  assert.equal(await alarm(d, 'wind'), {
    id: 'wind', severity: 'critical', state: 'rtn_unack', active: false, since: at(2000), raised_at: at(1000), value: 20,
    message: 'wind high', acked_by: null, acked_at: null, shelved_until: null, escalated_at: null, unknown: null,
  });
  clock.advance(1000);
  const acked = await request(d.url, '/alarms/wind/ack', { body: { by: 'ops', note: 'dome closed' } });
  assert.is(acked.status, 200);
  assert.equal(acked.json, {
    id: 'wind', severity: 'critical', state: 'normal', active: false, since: at(3000), raised_at: at(1000), value: 20,
    message: 'wind high', acked_by: 'ops', acked_at: at(3000), shelved_until: null, escalated_at: null, unknown: null,
  });
  await waitEvents(4);
  assert.equal(events(), ['wind normal>unack warning', 'wind unack>unack critical', 'wind unack>rtn_unack critical', 'wind rtn_unack>normal critical ops']);
}));

test('hysteresis: 10,000 readings alternating 1% either side of the raise value with a 5% clear margin raise once and never clear', () => withAlarms(async ({ d, events, waitEvents }) => {
  for (let i = 0; i < 10_000; i++) await postEvent(d.url, { type: 'dome', data: { t: i % 2 === 0 ? 40.4 : 39.6 } });
  await postEvent(d.url, { type: 'dome', data: { t: 37.9 } });
  await waitEvents(2);
  assert.equal(events(), ['temp normal>unack serious', 'temp unack>normal serious']);
}));

test('for: an excursion shorter than the debounce raises nothing; one that lasts raises once it has lasted', () => withAlarms(async ({ d, clock, events, waitEvents }) => {
  await postEvent(d.url, { type: 'mast', data: { g: 45 } });
  clock.advance(30_000);
  await postEvent(d.url, { type: 'mast', data: { g: 35 } });
  clock.advance(60_000);
  await postEvent(d.url, { type: 'mast', data: { g: 45 } });
  clock.advance(59_999);
  await postEvent(d.url, { type: 'mast', data: { g: 46 } });
  assert.is((await alarm(d, 'gust')).state, 'normal');
  clock.advance(1);
  await waitEvents(1);
  assert.equal(events(), ['gust normal>unack warning']);
  assert.is((await alarm(d, 'gust')).raised_at, at(30_000 + 60_000 + 60_000));
  // not latched: it clears by itself once the condition no longer holds
  await postEvent(d.url, { type: 'mast', data: { g: 10 } });
  await waitEvents(2);
  assert.equal(events(), ['gust normal>unack warning', 'gust unack>normal warning']);
}));

test('shelve: no transition while shelved; at the end of the shelf raised again if the condition holds, else normal', () => withAlarms(async ({ d, clock, events, waitEvents }) => {
  await postEvent(d.url, { type: 'dome', data: { t: 45 } });
  await waitEvents(1);
  const shelved = await request(d.url, '/alarms/temp/shelve', { body: { by: 'ops', for_s: 60 } });
  assert.equal([shelved.status, shelved.json.state, shelved.json.shelved_until], [200, 'shelved', at(60_000)]);
  await postEvent(d.url, { type: 'dome', data: { t: 20 } });
  await postEvent(d.url, { type: 'dome', data: { t: 45 } });
  clock.advance(60_001);
  await waitEvents(3);
  assert.equal((await alarm(d, 'temp')).state, 'unack');
  await request(d.url, '/alarms/temp/shelve', { body: { by: 'ops', for_s: 10 } });
  await postEvent(d.url, { type: 'dome', data: { t: 20 } });
  clock.advance(10_001);
  await waitEvents(5);
  assert.equal(events(), ['temp normal>unack serious', 'temp unack>shelved serious ops', 'temp shelved>unack serious',
    'temp unack>shelved serious ops', 'temp shelved>normal serious']);
}));

test('an input that cannot be judged keeps the state and says why', () => withAlarms(async ({ d, waitEvents }) => {
  await postEvent(d.url, { type: 'dome', data: { t: 45 } });
  await waitEvents(1);
  await postEvent(d.url, { type: 'dome', data: { humidity: 3 } });
  const got = await alarm(d, 'temp');
  assert.equal([got.state, got.active, got.value, got.unknown], ['unack', true, 45, 'dome.data.t is missing']);
}));

test('every bad request is a clear 4xx and changes nothing', () => withAlarms(async ({ d, events, waitEvents }) => {
  await postEvent(d.url, { type: 'dome', data: { t: 45 } });
  await waitEvents(1);
  const rows: [string, string, string, unknown, number, string, string][] = [
    ['ack of an unknown alarm', 'POST', '/alarms/nope/ack', { by: 'ops' }, 404, 'UNKNOWN_ALARM', 'No alarm "nope" is configured.'],
    ['ack of a normal alarm', 'POST', '/alarms/wind/ack', { by: 'ops' }, 409, 'ALARM_NOT_UNACKED', 'Alarm wind has nothing to acknowledge: it is normal.'],
    ['unshelve of an alarm not shelved', 'DELETE', '/alarms/temp/shelve', undefined, 409, 'ALARM_NOT_SHELVED', 'Alarm temp is not shelved (it is unack).'],
    ['no body', 'POST', '/alarms/temp/ack', undefined, 422, 'INVALID_BODY', 'The body must be an acknowledgement, a JSON object such as {"by": "name"}; the body is empty.'],
    ['an array', 'POST', '/alarms/temp/ack', [], 422, 'INVALID_BODY', 'The body must be an acknowledgement, a JSON object; got [].'],
    ['no by', 'POST', '/alarms/temp/ack', { note: 'x' }, 422, 'INVALID_BODY', 'by must be a non-empty string of at most 64 characters without control characters (who does this); got nothing.'],
    ['by too long', 'POST', '/alarms/temp/ack', { by: 'x'.repeat(65) }, 422, 'INVALID_BODY', `by must be a non-empty string of at most 64 characters without control characters (who does this); got "${'x'.repeat(65)}".`],
    ['by with a control character', 'POST', '/alarms/temp/ack', { by: 'a\u001bb' }, 422, 'INVALID_BODY', 'by must be a non-empty string of at most 64 characters without control characters (who does this); got "a\\u001bb".'],
    ['a key it does not take', 'POST', '/alarms/temp/ack', { by: 'ops', for_s: 3 }, 422, 'INVALID_BODY', 'The body of an acknowledgement takes by, note, severity and since; "for_s" is not one of them.'],
    ['note not a string', 'POST', '/alarms/temp/ack', { by: 'ops', note: 5 }, 422, 'INVALID_BODY', 'note must be a non-empty string of at most 1024 characters without control characters; got 5.'],
    ['shelve without for_s', 'POST', '/alarms/temp/shelve', { by: 'ops' }, 422, 'INVALID_BODY', 'for_s must be a number of seconds above 0 and at most 604800 (7 days); got nothing.'],
    ['shelve for 0 s', 'POST', '/alarms/temp/shelve', { by: 'ops', for_s: 0 }, 422, 'INVALID_BODY', 'for_s must be a number of seconds above 0 and at most 604800 (7 days); got 0.'],
    ['shelve for a year', 'POST', '/alarms/temp/shelve', { by: 'ops', for_s: 31_536_000 }, 422, 'INVALID_BODY', 'for_s must be a number of seconds above 0 and at most 604800 (7 days); got 31536000.'],
    ['shelve for "1h"', 'POST', '/alarms/temp/shelve', { by: 'ops', for_s: '1h' }, 422, 'INVALID_BODY', 'for_s must be a number of seconds above 0 and at most 604800 (7 days); got "1h".'],
    ['shelve for 1e309 (too large for a number): its spelling', 'POST', '/alarms/temp/shelve', '{"by":"ops","for_s":1e309}', 422, 'INVALID_BODY', 'for_s must be a number of seconds above 0 and at most 604800 (7 days); got 1e309.'],
    ['shelve for -1e400', 'POST', '/alarms/temp/shelve', '{"for_s": -1e400 ,"by":"ops"}', 422, 'INVALID_BODY', 'for_s must be a number of seconds above 0 and at most 604800 (7 days); got -1e400.'],
    ['malformed JSON', 'POST', '/alarms/temp/ack', '{"by":', 400, 'MALFORMED_JSON', ''],
    ['GET of an action', 'GET', '/alarms/temp/ack', undefined, 405, 'METHOD_NOT_ALLOWED', '/alarms/temp/ack does not accept GET; use POST.'],
    ['PUT of shelve', 'PUT', '/alarms/temp/shelve', undefined, 405, 'METHOD_NOT_ALLOWED', '/alarms/temp/shelve does not accept PUT; use POST or DELETE.'],
  ];
  // C1 controls (0x9b: a one-byte CSI) and DEL quoted in a detail are JSON escapes in the body's bytes, as C0 ones are
  const c1 = await request(d.url, '/alarms/temp/ack', { method: 'POST', body: '{"by":"a\u009b\u0085\u007fb"}', headers: { 'content-type': 'application/json' } });
  assert.is(c1.text, '{"detail":"by must be a non-empty string of at most 64 characters without control characters (who does this); got \\"a\\u009b\\u0085\\u007fb\\".","code":"INVALID_BODY"}');
  assert.is(c1.json.detail, 'by must be a non-empty string of at most 64 characters without control characters (who does this); got "a\u009b\u0085\u007fb".');
  for (const [name, method, path, body, status, code, detail] of rows) {
    const headers = typeof body === 'string' ? { 'content-type': 'application/json' } : undefined;
    const got = await request(d.url, path, { method, body: body as object | undefined, headers });
    assert.is(got.status, status, name);
    assert.is(got.json.code, code, name);
    if (detail !== '') assert.is(got.json.detail, detail, name);
  }
  assert.is((await alarm(d, 'temp')).state, 'unack');
  assert.equal(events(), ['temp normal>unack serious']);
}));

test.run();
