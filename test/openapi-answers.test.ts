import fs from 'node:fs';
import path from 'node:path';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { answerChecker, type AnswerCheck } from './helpers/openapi.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request, type RawAnswer, type RawRequest } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';

// Every endpoint and every error it documents, exercised on the real daemon; each answer is
// validated against the schemas of the served OpenAPI document (ajv, 2020-12).

const AT = '2026-03-17T20:05:48.955Z';
const DAY_FILE = 'site_20260317.ndjson';
// documented answers no request can provoke from outside: an unexpected error, a run
// start whose state file cannot be written (the site directory's own .meridian/), and a
// /stream 503 (only while the daemon shuts down; STREAM_OVERFLOW is the `dropped` event of
// a stream, tested in stream-live.test.ts), and a rollup rebuild on a full disk (it makes its
// directory afresh; provoked on a real tmpfs in rollup-disk-full-tmpfs.test.ts)
const unreachable = (answer: string) => answer.endsWith(' 500') || answer === 'POST /run/start 503' || answer === 'POST /run/stop 503' || answer === 'GET /stream 503'
  || answer === 'POST /rollups/rebuild 503';

/** Calls the daemon, checks each answer against the document, and records which answers were seen. */
function exerciser(d: TestDaemon, doc: OpenAPIObject) {
  const check: AnswerCheck = answerChecker(doc);
  const seen = new Set<string>();
  const call = async (method: string, rawPath: string, status: number, opts: RawRequest & { code?: string } = {}): Promise<RawAnswer> => {
    const answer = await request(d.url, rawPath, { ...opts, method });
    assert.is(answer.status, status, `${method} ${rawPath}: ${answer.text}`);
    if (opts.code) assert.is(answer.json?.code, opts.code, `${method} ${rawPath}`);
    check(method, rawPath, answer);
    seen.add(`${method} ${templateOf(doc, rawPath)} ${status}`);
    return answer;
  };
  return { call, seen };
}

function templateOf(doc: OpenAPIObject, rawPathAndQuery: string): string {
  const rawPath = rawPathAndQuery.split('?')[0]!;
  const found = Object.keys(doc.paths!).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(rawPath));
  return found ?? rawPath;
}

/** `METHOD /template STATUS` of every answer the document describes. */
function documentedAnswers(doc: OpenAPIObject): string[] {
  return Object.entries(doc.paths!).flatMap(([p, item]) => Object.entries(item as Record<string, { responses: object }>)
    .flatMap(([m, op]) => Object.keys(op.responses).map((s) => `${m.toUpperCase()} ${p} ${s}`)));
}

/** A concrete path for a route template (`{type}` -> `weather`). */
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, 'weather');

const JSON_TYPE = { 'content-type': 'application/json' };

// one alarm, named as the path parameters of the loop below are (`weather`)
const ALARM = '[[alarm]]\nid = "weather"\nseverity = "warning"\nwhen = "weather.data.t < 0"';

test('every documented answer of every route is provoked, and each matches the document', () => withTestDaemon(
  { clock: new ManualClock(AT), env: { TZ: 'UTC' }, flags: { maxBody: 300_000 }, config: ALARM }, async (d) => {
    const doc = (await request(d.url, '/openapi.json')).json as OpenAPIObject;
    const { call, seen } = exerciser(d, doc);
    const routes = Object.entries(doc.paths!).flatMap(([p, item]) => Object.keys(item as object).map((m) => [m.toUpperCase(), p] as const));
    for (const [method, template] of routes) {
      await call(method, concrete(template), 403, { headers: { origin: 'http://example.com' }, code: 'FORBIDDEN' });
      await call(method, concrete(template), 400, { headers: { host: 'user@localhost' }, code: 'INVALID_HOST' });
    }
    await call('GET', '/health', 200);
    await call('GET', '/ready', 200);
    await call('GET', '/status', 200);
    await call('GET', '/safety', 200);
    await call('GET', '/safety/indi', 200);
    await call('GET', '/safety/watcher', 200);
    await call('GET', '/openapi.json', 200);
    await call('GET', '/metrics', 200);
    await call('GET', '/run', 404, { code: 'NO_ACTIVE_RUN' });
    await call('POST', '/run/stop', 404, { code: 'NO_ACTIVE_RUN' });
    const empty = await call('GET', '/current', 200);
    await call('GET', '/current', 304, { headers: { 'if-none-match': String(empty.headers.etag) } });
    await call('GET', '/current?stale=maybe', 422, { code: 'INVALID_QUERY' });
    await call('GET', '/current/weather', 404, { code: 'NO_READING' });
    await call('GET', '/current/a/b', 404, { code: 'NOT_FOUND' });
    await call('GET', '/nowhere', 404, { code: 'NOT_FOUND' });
    await call('GET', '/event', 405, { code: 'METHOD_NOT_ALLOWED' });

    // the day file on a full disk: the write fails, nothing is recorded
    const dayFile = path.join(d.siteDir, DAY_FILE);
    fs.symlinkSync('/dev/full', dayFile);
    await call('POST', '/event', 503, { body: { type: 'weather', data: 1 }, code: 'DISK_FULL' });
    await call('POST', '/events', 503, { body: [{ type: 'weather', data: 1 }], code: 'DISK_FULL' });
    fs.unlinkSync(dayFile);
    const event = await call('POST', '/event', 200, { body: { type: 'weather', data: { t: -3.5 }, meta: { station: 'ws1' } } });
    assert.is(event.json.seq, 1);
    await exerciseAlarms(d, call);
    await call('POST', '/event', 422, { body: { type: 'power', data: 1, max_age_s: 0 }, code: 'INVALID_MAX_AGE' });
    const own = await call('POST', '/event', 200, { body: { type: 'power', data: 1, max_age_s: 90 } });
    assert.equal(own.json.meta, { max_age_s: 90 });
    await call('GET', '/current/weather', 200);
    await call('GET', '/current', 200);
    await call('GET', '/current?freshness=true', 200);
    await call('GET', '/current?type=weather&stale=false', 200);
    await call('POST', '/events', 200, { body: [{ type: 'weather', data: 2 }, { type: 'dome', data: 'open' }] });
    await call('GET', '/history?type=weather&limit=1', 200);
    await call('GET', '/history?limit=0', 422, { code: 'INVALID_QUERY' });
    await call('GET', '/history?cursor=site:99', 422, { code: 'INVALID_CURSOR' });
    // rollups: the buckets answer (a field with a reading, one without: null), the rebuild
    await call('POST', '/event', 200, { body: { type: 'weather', data: { temp_c: 4 } } });
    await call('POST', '/event', 200, { body: { type: 'weather', data: { wind: 2.5 } } });
    await call('GET', '/history?type=weather&step=1h&fields=data.temp_c,data.wind,data.none', 200);
    await call('GET', '/history?type=weather&step=auto&width=5', 200);
    await call('GET', '/history?type=weather&step=5m', 422, { code: 'INVALID_QUERY' });
    await call('POST', '/rollups/rebuild', 200);
    await withTestDaemon({ flags: { rollups: 'off' } }, async (off) => {
      const other = exerciser(off, doc);
      await other.call('GET', '/history?type=weather&step=1h', 409, { code: 'ROLLUPS_OFF' });
      await other.call('POST', '/rollups/rebuild', 409, { code: 'ROLLUPS_OFF' });
      for (const answer of other.seen) seen.add(answer);
    });
    await call('GET', '/stream?since=bogus', 422, { code: 'INVALID_CURSOR' });
    // a stream never ends: read until its `live` marker, then the answer's head is what the document says
    const stream = new SseReader(d.url, '/stream?type=weather');
    await stream.live();
    stream.close();
    assert.equal([stream.status, stream.headers['content-type'], stream.named('snapshot').length], [200, 'text/event-stream', 1]);
    seen.add('GET /stream 200');
    await call('POST', '/events', 422, { body: [{ type: 'weather' }], code: 'INVALID_BATCH' });
    await call('POST', '/events?partial=true', 422, { body: [{ type: 'weather' }, { type: 'wind', data: 3 }], code: 'BATCH_PARTLY_RECORDED' });
    await call('POST', '/events?partial=maybe', 422, { body: [{ type: 'wind', data: 3 }], code: 'INVALID_QUERY' });
    const many = `${'{"type":"a","data":1}\n'.repeat(10_001)}`;
    await call('POST', '/events', 413, { body: many, headers: { 'content-type': 'application/x-ndjson' }, code: 'BATCH_TOO_LARGE' });
    for (const route of ['/event', '/events', '/run/start', '/alarms/weather/ack', '/alarms/weather/shelve']) {
      await call('POST', route, 400, { body: '{"type":', headers: JSON_TYPE, code: 'MALFORMED_JSON' });
      await call('POST', route, 413, { body: { type: 'x', data: 'y'.repeat(300_000) }, code: 'BODY_TOO_LARGE' });
      await call('POST', route, 415, { body: '{}', headers: { 'content-type': 'text/plain' }, code: 'UNSUPPORTED_MEDIA_TYPE' });
      await call('POST', route, 422, { body: [], code: 'INVALID_BODY' });
    }
    await call('POST', '/run/start', 422, { body: { run_id: '../up' }, code: 'INVALID_RUN' });
    await call('POST', '/run/start', 200, { body: { run_id: 'n1', meta: { observer: 'ab' } } });
    await call('POST', '/run/start', 409, { body: { run_id: 'n2' }, code: 'RUN_ACTIVE' });
    await call('GET', '/run', 200);
    await call('POST', '/event', 200, { body: { type: 'dome', data: 'open' } });
    await call('GET', '/status', 200);
    await call('POST', '/run/stop', 200);
    // the night report of a site day and of a run
    await call('GET', '/reports/night/20260317', 200);
    await call('GET', '/reports/night/20260230', 422, { code: 'INVALID_NIGHT' });
    await call('GET', '/reports/night?run=n1', 200);
    await call('GET', '/reports/night?run=none', 422, { code: 'INVALID_QUERY' });
    await call('POST', '/shutdown', 200);
    await d.daemon.closed;

    // 401 is provoked on a daemon with a token (next test)
    const missing = documentedAnswers(doc).filter((a) => !seen.has(a) && !unreachable(a) && !a.endsWith(' 401'));
    assert.equal(missing, []);
    assert.is(seen.size, documentedAnswers(doc).filter((a) => !unreachable(a) && !a.endsWith(' 401')).length + 3); // + /nowhere, GET /event, /current/a/b
  }));

/** The alarm routes' answers, the alarm raised by the reading just posted (t -3.5). */
async function exerciseAlarms(d: TestDaemon, call: ReturnType<typeof exerciser>['call']): Promise<void> {
  await call('GET', '/alarms', 200);
  assert.is((await call('GET', '/alarms/weather', 200)).json.state, 'unack');
  await call('GET', '/alarms/nope', 404, { code: 'UNKNOWN_ALARM' });
  // the state file cannot be written (a directory in its place): nothing changes, 503
  const state = path.join(d.siteDir, '.meridian', 'alarms.json');
  fs.rmSync(state);
  fs.mkdirSync(state);
  await call('POST', '/alarms/weather/ack', 503, { body: { by: 'ops' }, code: 'STORAGE_UNAVAILABLE' });
  await call('POST', '/alarms/weather/shelve', 503, { body: { by: 'ops', for_s: 60 }, code: 'STORAGE_UNAVAILABLE' });
  fs.rmdirSync(state);
  await call('POST', '/alarms/weather/ack', 200, { body: { by: 'ops', note: 'seen' } });
  await call('POST', '/alarms/weather/ack', 409, { body: { by: 'ops' }, code: 'ALARM_NOT_UNACKED' });
  await call('POST', '/alarms/nope/ack', 404, { body: { by: 'ops' }, code: 'UNKNOWN_ALARM' });
  await call('POST', '/alarms/nope/shelve', 404, { body: { by: 'ops', for_s: 60 }, code: 'UNKNOWN_ALARM' });
  await call('DELETE', '/alarms/weather/shelve', 409, { code: 'ALARM_NOT_SHELVED' });
  await call('POST', '/alarms/weather/shelve', 200, { body: { by: 'ops', for_s: 60 } });
  fs.mkdirSync(state + '.x');
  fs.renameSync(state, state + '.y');
  fs.renameSync(state + '.x', state);
  await call('DELETE', '/alarms/weather/shelve', 503, { code: 'STORAGE_UNAVAILABLE' });
  fs.rmdirSync(state);
  fs.renameSync(state + '.y', state);
  await call('DELETE', '/alarms/nope/shelve', 404, { code: 'UNKNOWN_ALARM' });
  await call('DELETE', '/alarms/weather/shelve', 400, { body: '{"by":', headers: JSON_TYPE, code: 'MALFORMED_JSON' });
  await call('DELETE', '/alarms/weather/shelve', 413, { body: { by: 'y'.repeat(300_000) }, code: 'BODY_TOO_LARGE' });
  await call('DELETE', '/alarms/weather/shelve', 415, { body: '{}', headers: { 'content-type': 'text/plain' }, code: 'UNSUPPORTED_MEDIA_TYPE' });
  await call('DELETE', '/alarms/weather/shelve', 422, { body: { by: 7 }, code: 'INVALID_BODY' });
  await call('DELETE', '/alarms/weather/shelve', 200, { body: { by: 'ops' } });
}

test('with a token: 401 without it, 403 with a wrong one, on every route but /health and /ready', () => withTestDaemon(
  { flags: { token: 's3cret' } }, async (d) => {
    const doc = (await request(d.url, '/openapi.json', { headers: { authorization: 'Bearer s3cret' } })).json as OpenAPIObject;
    const { call, seen } = exerciser(d, doc);
    const routes = Object.entries(doc.paths!).flatMap(([p, item]) => Object.keys(item as object).map((m) => [m.toUpperCase(), p] as const));
    for (const [method, template] of routes) {
      if (template === '/health' || template === '/ready') {
        await call(method, template, 200);
        continue;
      }
      await call(method, concrete(template), 401, { code: 'UNAUTHORIZED' });
      await call(method, concrete(template), 403, { headers: { authorization: 'Bearer wrong' }, code: 'FORBIDDEN' });
    }
    const unauthorized = documentedAnswers(doc).filter((a) => a.endsWith(' 401'));
    assert.is(unauthorized.length, routes.length - 2);
    assert.equal(unauthorized.filter((a) => !seen.has(a)), []);
  }));

test('the checker refuses an answer the document does not describe', () => withTestDaemon({}, async (d) => {
  const check = answerChecker((await request(d.url, '/openapi.json')).json as OpenAPIObject);
  const answer = (status: number, json: unknown): RawAnswer =>
    ({ status, headers: { 'content-type': 'application/json' }, text: JSON.stringify(json), json });
  check('GET', '/health', answer(200, { ok: true }));
  assert.throws(() => check('GET', '/health', answer(200, { ok: true, extra: 1 })), /must NOT have additional properties/);
  assert.throws(() => check('GET', '/health', answer(201, { ok: true })), /status 201 is not documented/);
  assert.throws(() => check('GET', '/run', answer(404, { detail: 'x', code: 'NO_READING' })), /must be equal to one of the allowed values/);
  assert.throws(() => check('GET', '/current/x', answer(200, { seq: 0, ts: 'now', type: 'x', data: 1, meta: {} })), /must be >= 1/);
}));

test.run();
