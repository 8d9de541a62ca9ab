import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DaemonFlags } from '../lib/config.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request, type RawAnswer, type RawRequest } from './helpers/http.js';

// Every error status with its exact {"detail","code"} body, and proof that a refused
// request records nothing: the files stay byte for byte, the next event takes the next seq.

function withDaemon(fn: (d: TestDaemon) => Promise<void>, flags?: DaemonFlags): Promise<void> {
  return withTestDaemon({ flags }, fn);
}

/** Every file under `dir` with its content (the daemon's state files included). */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const full = path.join(entry.parentPath ?? entry.path, entry.name);
      out[path.relative(dir, full)] = fs.readFileSync(full, 'utf8');
    }
  }
  return out;
}

function assertError(answer: RawAnswer, status: number, code: string, detail: string): void {
  assert.is(answer.status, status, answer.text);
  assert.is(answer.headers['content-type'], 'application/json');
  assert.is(answer.text, JSON.stringify({ detail, code }));
}

/** Record one event, send the bad request, check the answer and that nothing changed. */
async function assertRefusedWithoutTrace(d: TestDaemon, send: () => Promise<RawAnswer>, status: number, code: string, detail: string): Promise<void> {
  assert.is((await postEvent(d.url, { type: 'weather', data: { t: 1 } })).json.seq, 1);
  const before = tree(d.siteDir);
  const current = (await request(d.url, '/current?freshness=false')).text;
  assertError(await send(), status, code, detail);
  assert.equal(tree(d.siteDir), before);
  assert.is((await request(d.url, '/current?freshness=false')).text, current);
  const next = await postEvent(d.url, { type: 'weather', data: { t: 2 } });
  assert.is(next.status, 200);
  assert.is(next.json.seq, 2);
}

const jsonError = (text: string): string => {
  try {
    JSON.parse(text);
  } catch (error) {
    return `The body is not valid JSON: ${(error as Error).message}.`;
  }
  throw new Error(`${text} is valid JSON`);
};

const raw = (body: string, contentType = 'application/json'): RawRequest =>
  ({ method: 'POST', body, headers: { 'content-type': contentType } });

// [name, request to /event, status, code, detail]
const BAD_EVENTS: [string, RawRequest, number, string, string][] = [
  ['type missing', { body: { data: 1 } }, 422, 'INVALID_BODY', 'type is required.'],
  ['type a number', { body: { type: 5, data: 1 } }, 422, 'INVALID_BODY', 'type must be a string; got number 5.'],
  ['type null', { body: { type: null, data: 1 } }, 422, 'INVALID_BODY', 'type must be a string; got null.'],
  ['type an object', { body: { type: { a: 1 }, data: 1 } }, 422, 'INVALID_BODY', 'type must be a string; got an object.'],
  ['type an array', { body: { type: ['weather'], data: 1 } }, 422, 'INVALID_BODY', 'type must be a string; got an array.'],
  ['type true', { body: { type: true, data: 1 } }, 422, 'INVALID_BODY', 'type must be a string; got boolean true.'],
  ['type empty', { body: { type: '', data: 1 } }, 422, 'INVALID_BODY', 'type must not be empty.'],
  ['type of 257 characters', { body: { type: 'x'.repeat(257), data: 1 } }, 422, 'INVALID_BODY', 'type must be at most 256 characters; got 257.'],
  ['type of 257 emoji', { body: { type: '\u{1F52D}'.repeat(257), data: 1 } }, 422, 'INVALID_BODY', 'type must be at most 256 characters; got 257.'],
  ['type with a newline', { body: { type: 'dome\nstatus', data: 1 } }, 422, 'INVALID_BODY', 'type must not contain control characters.'],
  ['type with a tab', { body: { type: 'dome\tstatus', data: 1 } }, 422, 'INVALID_BODY', 'type must not contain control characters.'],
  ['type with NUL', { body: { type: 'dome\u0000', data: 1 } }, 422, 'INVALID_BODY', 'type must not contain control characters.'],
  ['type with ESC', { body: { type: '\u001b[31mred', data: 1 } }, 422, 'INVALID_BODY', 'type must not contain control characters.'],
  ['type with DEL', { body: { type: 'dome\u007f', data: 1 } }, 422, 'INVALID_BODY', 'type must not contain control characters.'],
  ['type with a C1 control', { body: { type: 'dome\u0085', data: 1 } }, 422, 'INVALID_BODY', 'type must not contain control characters.'],
  ['data missing', { body: { type: 'weather' } }, 422, 'INVALID_BODY', 'data is required (null counts as given).'],
  ['meta an array', { body: { type: 'weather', data: 1, meta: [1] } }, 422, 'INVALID_BODY', 'meta must be a JSON object; got an array.'],
  ['meta a string', { body: { type: 'weather', data: 1, meta: 'night' } }, 422, 'INVALID_BODY', 'meta must be a JSON object; got string "night".'],
  ['meta null', { body: { type: 'weather', data: 1, meta: null } }, 422, 'INVALID_BODY', 'meta must be a JSON object; got null.'],
  ['make_current a string', { body: { type: 'weather', data: 1, make_current: 'false' } }, 422, 'INVALID_BODY', 'make_current must be true or false; got string "false".'],
  ['make_current null', { body: { type: 'weather', data: 1, make_current: null } }, 422, 'INVALID_BODY', 'make_current must be true or false; got null.'],
  ['make_current a number', { body: { type: 'weather', data: 1, make_current: 0 } }, 422, 'INVALID_BODY', 'make_current must be true or false; got number 0.'],
  ['body an array', raw('[{"type":"weather","data":1}]'), 422, 'INVALID_BODY', 'The event must be a JSON object; got an array.'],
  ['body a string', raw('"weather"'), 422, 'INVALID_BODY', 'The event must be a JSON object; got string "weather".'],
  ['body a number', raw('42'), 422, 'INVALID_BODY', 'The event must be a JSON object; got number 42.'],
  ['body null', raw('null'), 422, 'INVALID_BODY', 'The event must be a JSON object; got null.'],
  ['body empty', raw(''), 422, 'INVALID_BODY', 'The event must be a JSON object; the body is empty.'],
  ['no body at all', { method: 'POST' }, 422, 'INVALID_BODY', 'The event must be a JSON object; the body is empty.'],
  ['malformed JSON: cut off', raw('{"type":"weather","data":'), 400, 'MALFORMED_JSON', jsonError('{"type":"weather","data":')],
  ['malformed JSON: single quotes', raw("{'type':'weather'}"), 400, 'MALFORMED_JSON', jsonError("{'type':'weather'}")],
  ['malformed JSON: trailing comma', raw('{"type":"weather","data":1,}'), 400, 'MALFORMED_JSON', jsonError('{"type":"weather","data":1,}')],
  ['malformed JSON: two values', raw('{"type":"a","data":1}{}'), 400, 'MALFORMED_JSON', jsonError('{"type":"a","data":1}{}')],
  ['text/plain', raw('{"type":"weather","data":1}', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE',
    'The body must be JSON sent with Content-Type: application/json; got "text/plain".'],
  ['form encoded', raw('type=weather', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE',
    'The body must be JSON sent with Content-Type: application/json; got "application/x-www-form-urlencoded".'],
  ['no content type', { method: 'POST', body: '{"type":"weather","data":1}' }, 415, 'UNSUPPORTED_MEDIA_TYPE',
    'The body must be JSON sent with Content-Type: application/json; got no Content-Type.'],
  // a body declared compressed is never read as if it were plain (here it is plain JSON: still refused)
  ['Content-Encoding gzip', { method: 'POST', body: '{"type":"weather","data":1}', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } },
    415, 'UNSUPPORTED_MEDIA_TYPE', 'The body must be sent uncompressed; got Content-Encoding: "gzip".'],
  ['Content-Encoding identity, br', { method: 'POST', body: '{"type":"weather","data":1}', headers: { 'content-type': 'application/json', 'content-encoding': 'Identity, BR' } },
    415, 'UNSUPPORTED_MEDIA_TYPE', 'The body must be sent uncompressed; got Content-Encoding: "br".'],
];

for (const [name, req, status, code, detail] of BAD_EVENTS) {
  test(`POST /event refuses ${name}: ${status} ${code}, nothing recorded`, () =>
    withDaemon((d) => assertRefusedWithoutTrace(d, () => request(d.url, '/event', { method: 'POST', ...req }), status, code, detail)));
}

// [name, body, expected data/meta as stored]
const ACCEPTED: [string, object, object][] = [
  ['data null counts as given', { type: 'weather', data: null }, { data: null, meta: {} }],
  ['data false', { type: 'weather', data: false }, { data: false, meta: {} }],
  ['a type of exactly 256 characters', { type: 'x'.repeat(256), data: 1 }, { data: 1, meta: {} }],
  ['a type of 256 emoji', { type: '\u{1F52D}'.repeat(256), data: 1 }, { data: 1, meta: {} }],
  ['unknown keys are ignored (the seed client\'s stream too)', { type: 'weather', data: 1, extra: true, seq: 99, stream: 'site' }, { data: 1, meta: {} }],
  ['meta an empty object', { type: 'weather', data: 1, meta: {} }, { data: 1, meta: {} }],
];

for (const [name, body, stored] of ACCEPTED) {
  test(`POST /event accepts ${name}`, () => withDaemon(async (d) => {
    const answer = await postEvent(d.url, body);
    assert.is(answer.status, 200, answer.text);
    assert.equal({ seq: answer.json.seq, data: answer.json.data, meta: answer.json.meta }, { seq: 1, ...stored });
  }));
}

test('content types: charset parameter and +json suffix are JSON', () => withDaemon(async (d) => {
  for (const [i, type] of ['application/json; charset=utf-8', 'Application/JSON', 'application/vnd.meridian+json'].entries()) {
    const answer = await request(d.url, '/event', raw('{"type":"weather","data":1}', type));
    assert.is(answer.status, 200, `${type}: ${answer.text}`);
    assert.is(answer.json.seq, i + 1);
  }
}));

// [name, method, path, status, code, detail, Allow header]
const ROUTING: [string, string, string, number, string, string, string | undefined][] = [
  ['unknown path', 'GET', '/nope', 404, 'NOT_FOUND', 'There is no /nope here; see docs/http-api.md for the endpoints.', undefined],
  ['unknown path with POST', 'POST', '/eventz', 404, 'NOT_FOUND', 'There is no /eventz here; see docs/http-api.md for the endpoints.', undefined],
  ['unknown nested path', 'GET', '/run/status', 404, 'NOT_FOUND', 'There is no /run/status here; see docs/http-api.md for the endpoints.', undefined],
  ['GET /event', 'GET', '/event', 405, 'METHOD_NOT_ALLOWED', '/event does not accept GET; use POST.', 'POST'],
  ['PUT /event', 'PUT', '/event', 405, 'METHOD_NOT_ALLOWED', '/event does not accept PUT; use POST.', 'POST'],
  ['POST /health', 'POST', '/health', 405, 'METHOD_NOT_ALLOWED', '/health does not accept POST; use GET.', 'GET'],
  ['DELETE /ready', 'DELETE', '/ready', 405, 'METHOD_NOT_ALLOWED', '/ready does not accept DELETE; use GET.', 'GET'],
  ['POST /run', 'POST', '/run', 405, 'METHOD_NOT_ALLOWED', '/run does not accept POST; use GET.', 'GET'],
  ['GET /run/start', 'GET', '/run/start', 405, 'METHOD_NOT_ALLOWED', '/run/start does not accept GET; use POST.', 'POST'],
  ['GET /run/stop', 'GET', '/run/stop', 405, 'METHOD_NOT_ALLOWED', '/run/stop does not accept GET; use POST.', 'POST'],
  ['POST /current', 'POST', '/current', 405, 'METHOD_NOT_ALLOWED', '/current does not accept POST; use GET.', 'GET'],
  ['DELETE /current/weather', 'DELETE', '/current/weather', 405, 'METHOD_NOT_ALLOWED', '/current/weather does not accept DELETE; use GET.', 'GET'],
  ['GET /shutdown', 'GET', '/shutdown', 405, 'METHOD_NOT_ALLOWED', '/shutdown does not accept GET; use POST.', 'POST'],
  ['GET /current/{type} with a raw slash', 'GET', '/current/mount/axis', 404, 'NOT_FOUND', 'There is no /current/mount/axis here; a type containing "/" must be URL-encoded (%2F).', undefined],
  // a path no route can take, whatever its method: what is wrong with it (not a 405 of a shorter route, not a parameter taken raw)
  ...[['POST', '/alarms//ack'], ['GET', '/alarms//ack'], ['DELETE', '/alarms//shelve'], ['GET', '/current//x'], ['POST', '//event'], ['GET', '/reports//night/20261124']]
    .map(([method, path]): [string, string, string, number, string, string, undefined] => [`${method} ${path}`, method!, path!, 404, 'NOT_FOUND',
      `There is no ${path!} here: a segment of the path is empty (two slashes in a row).`, undefined]),
  ...[['POST', '/alarms/%ZZ/ack', '%ZZ'], ['GET', '/alarms/%ZZ', '%ZZ'], ['DELETE', '/alarms/a%E0%A4%A/shelve', 'a%E0%A4%A'], ['GET', '/current/%ZZ', '%ZZ'], ['GET', '/reports/night/%2', '%2']]
    .map(([method, path, segment]): [string, string, string, number, string, string, undefined] => [`${method} ${path}`, method!, path!, 404, 'NOT_FOUND',
      `There is no ${path!} here: ${segment!} is not valid percent-encoding (% and two hex digits, of UTF-8).`, undefined]),
  ['GET /run without a run', 'GET', '/run', 404, 'NO_ACTIVE_RUN', 'No run is active.', undefined],
  ['POST /run/stop without a run', 'POST', '/run/stop', 404, 'NO_ACTIVE_RUN', 'No run is active.', undefined],
  ['GET /current/{type} never posted', 'GET', '/current/rain', 404, 'NO_READING', 'There is no current reading of type "rain".', undefined],
  ['GET /current/{type} decoded in the detail', 'GET', '/current/dome%20status', 404, 'NO_READING', 'There is no current reading of type "dome status".', undefined],
];

for (const [name, method, urlPath, status, code, detail, allow] of ROUTING) {
  test(`${name}: ${status} ${code}`, () => withDaemon((d) => assertRefusedWithoutTrace(d, async () => {
    const answer = await request(d.url, urlPath, { method });
    assert.is(answer.headers.allow, allow);
    return answer;
  }, status, code, detail)));
}

test('413: a body over --max-body is refused (declared length), one at the limit is taken', () => withDaemon(async (d) => {
  const base = '{"type":"weather","data":""}';
  const atLimit = `{"type":"weather","data":"${'x'.repeat(100 - base.length)}"}`;
  assert.is(Buffer.byteLength(atLimit), 100);
  await assertRefusedWithoutTrace(d, () => request(d.url, '/event', raw(`${atLimit} `)), 413, 'BODY_TOO_LARGE',
    'The body is larger than the limit of 100 bytes.');
  const taken = await request(d.url, '/event', raw(atLimit));
  assert.is(taken.status, 200, taken.text);
  assert.is(taken.json.seq, 3);
}, { maxBody: 100 }));

test('413: a chunked body over --max-body is refused while reading', () => withDaemon(async (d) => {
  await assertRefusedWithoutTrace(d, () => chunked(d.url, '/event', [`{"type":"weather","data":"`, 'x'.repeat(80), 'y'.repeat(80), '"}']),
    413, 'BODY_TOO_LARGE', 'The body is larger than the limit of 100 bytes.');
}, { maxBody: 100 }));

test('413 on /run/start: nothing started, nothing created', () => withDaemon(async (d) => {
  await assertRefusedWithoutTrace(d, () => request(d.url, '/run/start', { body: { run_id: 'n1', meta: { pad: 'x'.repeat(200) } } }),
    413, 'BODY_TOO_LARGE', 'The body is larger than the limit of 100 bytes.');
  assert.is((await request(d.url, '/ready')).json.run_active, false);
}, { maxBody: 100 }));

// [name, request to /run/start, status, code, detail]
const BAD_RUN_STARTS: [string, RawRequest, number, string, string][] = [
  ['malformed JSON', raw('{"run_id":'), 400, 'MALFORMED_JSON', jsonError('{"run_id":')],
  ['text/plain', raw('{}', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE', 'The body must be JSON sent with Content-Type: application/json; got "text/plain".'],
  ['Content-Encoding deflate', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'content-encoding': 'deflate' } },
    415, 'UNSUPPORTED_MEDIA_TYPE', 'The body must be sent uncompressed; got Content-Encoding: "deflate".'],
  ['an array body', raw('[]'), 422, 'INVALID_BODY', 'The run start body must be a JSON object or null; got an array.'],
  ['run_dir a number', { body: { run_dir: 5 } }, 422, 'INVALID_BODY', 'run_dir must be a non-empty string or null; got number 5.'],
  ['run_dir empty', { body: { run_dir: '' } }, 422, 'INVALID_BODY', 'run_dir must be a non-empty string or null; got string "".'],
  ['run_id a number', { body: { run_id: 7 } }, 422, 'INVALID_BODY', 'run_id must be a string or null; got number 7.'],
  ['meta an array', { body: { meta: [] } }, 422, 'INVALID_BODY', 'meta must be a JSON object; got an array.'],
  ['meta a string', { body: { meta: 'x' } }, 422, 'INVALID_BODY', 'meta must be a JSON object; got string "x".'],
  ['a string body', raw('"x"'), 422, 'INVALID_BODY', 'The run start body must be a JSON object or null; got string "x".'],
];

for (const [name, req, status, code, detail] of BAD_RUN_STARTS) {
  test(`POST /run/start refuses ${name}: ${status} ${code}, no run, nothing created`, () => withDaemon(async (d) => {
    await assertRefusedWithoutTrace(d, () => request(d.url, '/run/start', { method: 'POST', ...req }), status, code, detail);
    assert.is((await request(d.url, '/ready')).json.run_active, false);
  }));
}

test('409 RUN_ACTIVE: a second start leaves the active run untouched', () => withDaemon(async (d) => {
  const first = await request(d.url, '/run/start', { body: { run_id: 'n1', meta: { observer: 'ada' } } });
  assert.is(first.status, 200);
  assert.is((await postEvent(d.url, { type: 'dome', data: 'open' })).json.seq, 1);
  const before = tree(d.siteDir);
  const second = await request(d.url, '/run/start', { body: { run_id: 'n2', run_dir: 'elsewhere', meta: { observer: 'bob' } } });
  assertError(second, 409, 'RUN_ACTIVE', 'Run n1 is already active; stop it first.');
  assert.equal(tree(d.siteDir), before);
  assert.not.ok(fs.existsSync(path.join(d.siteDir, 'elsewhere')));
  assert.not.ok(fs.existsSync(path.join(d.siteDir, 'n2')));
  assert.is((await request(d.url, '/run')).text, first.text);
  const next = await postEvent(d.url, { type: 'dome', data: 'closed' });
  assert.equal([next.json.seq, next.json.meta], [2, { run_id: 'n1' }]);
  const bodyless = await request(d.url, '/run/start', { method: 'POST' });
  assertError(bodyless, 409, 'RUN_ACTIVE', 'Run n1 is already active; stop it first.');
}));

test('the daemon still answers after a refused oversized body', () => withDaemon(async (d) => {
  for (let i = 0; i < 5; i++) {
    assertError(await request(d.url, '/event', raw(`{"type":"a","data":"${'x'.repeat(200)}"}`)), 413, 'BODY_TOO_LARGE',
      'The body is larger than the limit of 100 bytes.');
  }
  assert.is((await request(d.url, '/health')).text, '{"ok":true}');
}, { maxBody: 100 }));

/** POST a body in chunks with Transfer-Encoding: chunked (no Content-Length). */
function chunked(url: string, urlPath: string, parts: string[]): Promise<RawAnswer> {
  const base = new URL(url);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({
      host: base.hostname, port: base.port, path: urlPath, method: 'POST', agent: false,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: JSON.parse(text) });
      });
    });
    // the daemon may answer and close before every chunk is sent
    req.on('error', (error) => { if (!answered) reject(error); });
    for (const part of parts) req.write(part);
    req.end();
  });
}

test.run();
