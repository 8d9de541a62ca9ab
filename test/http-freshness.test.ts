import { execFile } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';

// Freshness in the API (issue 14): /current answers the original service's body by default
// (issue 22) and carries `freshness` beside `current` when asked (`?freshness=true`, or a
// `?stale=` filter), filters by staleness and type, /current/{type} keeps the envelope exact
// and says its age in X-Meridian-* headers, /status counts stale types. The daemon's clock is
// a ManualClock.

const T0 = '2026-03-17T20:00:00.000Z';
const RULES = 'weather=180,power=90,camera.*=300,*=600,debug.*=none';

function withDaemon(maxAge: string | undefined, fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' }, flags: { maxAge }, freshnessIntervalMs: 0 }, (d) => fn(d, clock));
}

const line = (seq: number, type: string, data: string, ts = T0) => `{"seq":${seq},"ts":"${ts}","type":"${type}","data":${data},"meta":{}}`;
const fresh = (age: number | null, max: number | null, stale: boolean) => JSON.stringify({ age_s: age, max_age_s: max, max_age_from: max === null ? null : 'rule', stale });

/** weather, power, camera.temp and debug.x at T0, then the clock 100.5 s on. */
async function seed(d: TestDaemon, clock: ManualClock): Promise<void> {
  for (const type of ['weather', 'power', 'camera.temp', 'debug.x']) assert.is((await postEvent(d.url, { type, data: 1 })).status, 200);
  clock.advance(100_500);
}

test('GET /current answers exactly the original body, the same bytes while no reading changes (an old poller never redraws)', () => withDaemon(`${RULES},dome=60`, async (d, clock) => {
  await seed(d, clock);
  const body = `{"current":{"camera.temp":${line(3, 'camera.temp', '1')},"debug.x":${line(4, 'debug.x', '1')},`
    + `"power":${line(2, 'power', '1')},"weather":${line(1, 'weather', '1')}}}`;
  const first = await request(d.url, '/current');
  assert.is(first.status, 200);
  assert.is(first.text, body);
  clock.advance(60_000);
  const later = await request(d.url, '/current?stream=weather');
  assert.is(later.text, body);
  assert.is(later.headers.etag, first.headers.etag);
}));

test('GET /current?freshness=true: freshness beside current, per-type limits, globs, none, an expected type never seen', () => withDaemon(`${RULES},dome=60`, async (d, clock) => {
  await seed(d, clock);
  const answer = await request(d.url, '/current?freshness=true');
  assert.is(answer.status, 200);
  assert.is(answer.text, `{"current":{"camera.temp":${line(3, 'camera.temp', '1')},"debug.x":${line(4, 'debug.x', '1')},`
    + `"power":${line(2, 'power', '1')},"weather":${line(1, 'weather', '1')}},"freshness":{`
    + `"camera.temp":${fresh(100.5, 300, false)},"debug.x":${fresh(100.5, null, false)},"dome":${fresh(null, 60, true)},`
    + `"power":${fresh(100.5, 90, true)},"weather":${fresh(100.5, 180, false)}}}`);
}));

test('GET /current: ages written as JSON writes ms / 1000 (no padding zeros, leading zeros kept), a reading posted later younger', () => withDaemon(undefined, async (d, clock) => {
  await postEvent(d.url, { type: 'a', data: 1 });
  const ages: [number, string][] = [[0, '0'], [50, '0.05'], [1007, '1.007'], [1000, '1'], [86_400_120, '86400.12'], [7, '0.007']];
  let at = 0;
  for (const [ms, text] of ages) {
    clock.set(Date.parse(T0) + ms);
    at = ms;
    assert.is((await request(d.url, '/current?freshness=true')).json.freshness.a.age_s, Number(text), `${ms} ms`);
    assert.match((await request(d.url, '/current?freshness=true')).text, `"freshness":{"a":{"age_s":${text},"max_age_s":null,"max_age_from":null,"stale":false}}}`);
  }
  await postEvent(d.url, { type: 'b', data: 2 });
  clock.advance(250);
  assert.match((await request(d.url, '/current?freshness=true')).text, `"freshness":{"a":{"age_s":${(at + 250) / 1000},"max_age_s":null,"max_age_from":null,"stale":false},"b":{"age_s":0.25,"max_age_s":null,"max_age_from":null,"stale":false}}}`);
}));

test('GET /current without --max-age: ages, no limits, nothing stale', () => withDaemon(undefined, async (d, clock) => {
  await postEvent(d.url, { type: 'weather', data: 1 });
  clock.advance(12_437);
  assert.is((await request(d.url, '/current?freshness=true')).text,
    `{"current":{"weather":${line(1, 'weather', '1')}},"freshness":{"weather":${fresh(12.437, null, false)}}}`);
}));

// [query, the types of `current`, the types of `freshness` (undefined: no `freshness` key)]
// A `stale` filter brings freshness along (a type expected but never seen is listed only
// there), unless `freshness=false` says otherwise; `type` alone does not.
const FILTERS: Array<[string, string[], string[] | undefined]> = [
  ['stale=true', ['power'], ['dome', 'power']],
  ['stale=false', ['camera.temp', 'debug.x', 'weather'], ['camera.temp', 'debug.x', 'weather']],
  ['stale=true&freshness=false', ['power'], undefined],
  ['type=weather,power', ['power', 'weather'], undefined],
  ['type=weather,power&freshness=true', ['power', 'weather'], ['power', 'weather']],
  ['type=weather&type=power&freshness=true', ['power', 'weather'], ['power', 'weather']],
  ['type=weather,dome,nothing&freshness=true', ['weather'], ['dome', 'weather']],
  ['type=weather,dome,nothing', ['weather'], undefined],
  ['type=weather,power&stale=true', ['power'], ['power']],
  ['type=camera.temp&stale=false&stream=ignored', ['camera.temp'], ['camera.temp']],
  ['type=a%2Cb&freshness=true', [], []],
  ['freshness=false', ['camera.temp', 'debug.x', 'power', 'weather'], undefined],
];

for (const [query, current, freshness] of FILTERS) {
  test(`GET /current?${query}`, () => withDaemon(`${RULES},dome=60`, async (d, clock) => {
    await seed(d, clock);
    const answer = await request(d.url, `/current?${query}`);
    assert.is(answer.status, 200, answer.text);
    assert.equal(Object.keys(answer.json.current), current);
    assert.equal(answer.json.freshness === undefined ? undefined : Object.keys(answer.json.freshness), freshness);
    assert.equal(Object.keys(answer.json), freshness === undefined ? ['current'] : ['current', 'freshness']);
  }));
}

test('GET /current?type= names a type with a comma as %2C', () => withDaemon('*=600', async (d) => {
  const posted = await postEvent(d.url, { type: 'a,b', data: 1 });
  const answer = await request(d.url, '/current?type=a%2Cb&freshness=true');
  assert.is(answer.text, `{"current":{"a,b":${posted.text}},"freshness":{"a,b":${fresh(0, 600, false)}}}`);
  assert.is((await request(d.url, '/current?type=a%2Cb')).text, `{"current":{"a,b":${posted.text}}}`);
}));

test('GET /current?freshness=false answers the original body as the default does (cached bytes, plain ETag), also filtered', () => withDaemon(RULES, async (d, clock) => {
  await seed(d, clock);
  const answer = await request(d.url, '/current?freshness=false');
  assert.is(answer.text, `{"current":{"camera.temp":${line(3, 'camera.temp', '1')},"debug.x":${line(4, 'debug.x', '1')},`
    + `"power":${line(2, 'power', '1')},"weather":${line(1, 'weather', '1')}}}`);
  const filtered = await request(d.url, '/current?freshness=false&stale=true');
  assert.is(filtered.text, `{"current":{"power":${line(2, 'power', '1')}}}`);
}));

// [query, detail]
const BAD_QUERIES: Array<[string, string]> = [
  ['stale=maybe', 'stale must be true or false; got "maybe".'],
  ['stale', 'stale must be true or false; got "".'],
  ['freshness=no', 'freshness must be true or false; got "no".'],
  ['type=', 'type must be a list of event types (1-256 characters, no control characters, comma-separated); got "".'],
  ['type=a,,b', 'type must be a list of event types (1-256 characters, no control characters, comma-separated); got "".'],
  ['type=%E0%A4%A', 'type is not valid percent-encoding: "%E0%A4%A".'],
  ['stale=true&stale=false', 'stale is given more than once.'],
];

for (const [query, detail] of BAD_QUERIES) {
  test(`GET /current?${query} is a 422 INVALID_QUERY`, () => withDaemon(RULES, async (d) => {
    const answer = await request(d.url, `/current?${query}`);
    assert.is(answer.status, 422);
    assert.equal(answer.json, { detail, code: 'INVALID_QUERY' });
  }));
}

test('GET /current/{type}: the envelope exactly, freshness in X-Meridian-* headers', () => withDaemon(RULES, async (d, clock) => {
  await seed(d, clock);
  const power = await request(d.url, '/current/power');
  assert.is(power.text, line(2, 'power', '1'));
  assert.equal([power.headers['x-meridian-age'], power.headers['x-meridian-max-age'], power.headers['x-meridian-stale'], power.headers['x-meridian-max-age-from']], ['100.5', '90', 'true', 'rule']);
  const debug = await request(d.url, '/current/debug.x');
  assert.equal([debug.headers['x-meridian-age'], debug.headers['x-meridian-max-age'], debug.headers['x-meridian-stale'], debug.headers['x-meridian-max-age-from']], ['100.5', undefined, 'false', undefined]);
}));

test('GET /current/{type} of an expected type never seen: 404 NO_READING, stale in the headers', () => withDaemon('dome=60', async (d) => {
  const dome = await request(d.url, '/current/dome');
  assert.is(dome.status, 404);
  assert.equal(dome.json, { detail: 'There is no current reading of type "dome".', code: 'NO_READING' });
  assert.equal([dome.headers['x-meridian-age'], dome.headers['x-meridian-max-age'], dome.headers['x-meridian-stale']], [undefined, '60', 'true']);
  const other = await request(d.url, '/current/other');
  assert.is(other.status, 404);
  assert.is(other.headers['x-meridian-stale'], undefined);
}));

test('ETag of /current?freshness=true: 304 while nothing changed; a new reading or a type turning stale changes it', () => withDaemon('power=90', async (d, clock) => {
  await postEvent(d.url, { type: 'power', data: 1 });
  const first = await request(d.url, '/current?freshness=true');
  const tag = first.headers.etag!;
  assert.is((await request(d.url, '/current?freshness=true', { headers: { 'if-none-match': tag } })).status, 304);
  clock.advance(91_000);
  d.daemon.freshness.watch.check();
  const turned = await request(d.url, '/current?freshness=true', { headers: { 'if-none-match': tag } });
  assert.is(turned.status, 200);
  assert.is(turned.json.freshness.power.stale, true);
  assert.is.not(turned.headers.etag, tag);
  // the original body keeps the tag of the readings alone
  const plain = await request(d.url, '/current');
  assert.is((await request(d.url, '/current', { headers: { 'if-none-match': plain.headers.etag! } })).status, 304);
  assert.is((await request(d.url, '/current?freshness=false', { headers: { 'if-none-match': plain.headers.etag! } })).status, 304);
  // If-None-Match as RFC 9110 has it: a list, weak tags, `*`
  const plainTag = plain.headers.etag!;
  const rows: Array<[string, number]> = [[`"other", ${plainTag}`, 304], [`W/${plainTag}`, 304], ['*', 304], [' * ', 304], ['"other"', 200], [`${plainTag.slice(0, -1)}x"`, 200]];
  for (const [header, status] of rows) {
    assert.is((await request(d.url, '/current', { headers: { 'if-none-match': header } })).status, status, header);
  }
}));

test('GET /status counts stale types (expected ones never seen included) and shows the limits', () => withDaemon(`${RULES},dome=60`, async (d, clock) => {
  await seed(d, clock);
  const status = (await request(d.url, '/status')).json;
  assert.is(status.types, 4);
  assert.is(status.stale, 2);
  assert.equal(status.max_age, { dome: 60, power: 90, weather: 180, 'camera.*': 300, 'debug.*': null, '*': 600 });
  assert.equal(Object.keys(status.max_age), ['dome', 'power', 'weather', 'camera.*', 'debug.*', '*']);
}));

// The original Python clients, as they turn answers into objects: the seed client returns
// the JSON as it is; panoptes-utils 0.5.3 reads answer["current"] and builds an event from
// seq, ts, type, data and meta. The strictest reader, a dataclass built with **envelope,
// fails on any key it does not know.
const PYTHON_CLIENT = `
import json, sys, urllib.request
from dataclasses import dataclass
@dataclass(frozen=True)
class Envelope:
    seq: int
    ts: str
    type: str
    data: object
    meta: dict
base = sys.argv[1]
def get(path):
    with urllib.request.urlopen(base + path) as r:
        return json.loads(r.read())
view = get("/current")
events = {k: Envelope(seq=v["seq"], ts=v["ts"], type=v["type"], data=v.get("data", {}), meta=v.get("meta", {})) for k, v in view.get("current", {}).items()}
one = Envelope(**get("/current/power"))
old = get("/current?stream=weather")
whole = view == {"current": {k: get("/current/" + k) for k in ["camera.temp", "debug.x", "power", "weather"]}}
print(sorted(events), events["power"].seq, one.type, one.seq, sorted(old["current"]), whole)
`;

test('the original Python clients read /current and /current/{type} as before, and compare the whole body', () => withDaemon(RULES, async (d, clock) => {
  await seed(d, clock);
  const out = await new Promise<string>((resolve, reject) => {
    execFile('python3', ['-c', PYTHON_CLIENT, d.url], { timeout: 20_000 }, (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)));
  });
  assert.is(out, "['camera.temp', 'debug.x', 'power', 'weather'] 2 power 2 ['camera.temp', 'debug.x', 'power', 'weather'] True\n");
}));

test.run();
