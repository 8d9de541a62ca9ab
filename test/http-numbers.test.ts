import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { spawnDaemon, startTestDaemon, type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Data kept exactly (docs/http-api.md, request bodies): every number spelled as sent, byte for byte,
// through the POST answer, the file, /current, /current/{type} and restarts; a nesting
// limit answered 422, never a 500 or a stack trace.

const T0 = '2026-03-17T20:05:48.955Z';
const SITE_FILE = 'site_20260317.ndjson';

// [name, the value as sent]
const SPELLINGS: Array<[string, string]> = [
  ['one point zero', '1.0'],
  ['minus ten point zero', '-10.0'],
  ['negative zero', '-0.0'],
  ['integer negative zero', '-0'],
  ['past the double range', '1e400'],
  ['below the double range', '-1e-400'],
  ['a capital exponent', '1E-7'],
  ['an exponent with a plus', '2.5E+3'],
  ['2^53 + 1', '9007199254740993'],
  ['a 20-digit integer', '12345678901234567890'],
  ['a negative 20-digit integer', '-98765432109876543210'],
  ['0.1', '0.1'],
  ['a long fraction', '0.1000000000000000055511151231257827021181583404541015625'],
  ['pi past double precision', '3.14159265358979323846264338327950288'],
  ['trailing zeros', '120.500'],
];

const body = (type: string, value: string) =>
  `{"type": "${type}", "data": {"v": ${value}, "list": [${value}, ${value}]}, "meta": {"m": ${value}}}`;
const envelope = (seq: number, type: string, value: string) =>
  `{"seq":${seq},"ts":"${T0}","type":"${type}","data":{"v":${value},"list":[${value},${value}]},"meta":{"m":${value}}}`;

function post(url: string, text: string) {
  return request(url, '/event', { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
}

/** Check every place a reading shows up: /current, /current/{type}. */
async function assertCurrent(url: string, expected: Map<string, string>, when: string): Promise<void> {
  const types = [...expected.keys()].sort();
  const all = await request(url, '/current?freshness=false');
  assert.is(all.text, `{"current":{${types.map((t) => `"${t}":${expected.get(t)}`).join(',')}}}`, when);
  for (const type of types) assert.is((await request(url, `/current/${type}`)).text, expected.get(type), `${when}: ${type}`);
}

test('every spelling round-trips byte for byte: answer, file, /current, restart from the snapshot, full replay, kill -9', async () => {
  const siteDir = tempDir();
  const expected = new Map<string, string>();
  const clock = new ManualClock(T0);
  try {
    let d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    for (const [i, [name, value]] of SPELLINGS.entries()) {
      const type = `n${String(i).padStart(2, '0')}`;
      const answer = await post(d.url, body(type, value));
      assert.is(answer.text, envelope(i + 1, type, value), name);
      expected.set(type, answer.text);
    }
    const lines = [...expected.values()].map((l) => `${l}\n`).join('');
    assert.is(fs.readFileSync(path.join(siteDir, SITE_FILE), 'utf8'), lines);
    await assertCurrent(d.url, expected, 'live');

    await d.close();
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    await assertCurrent(d.url, expected, 'after a clean restart (snapshot)');
    await d.close();

    fs.rmSync(path.join(siteDir, '.meridian', 'snapshot.json'));
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    await assertCurrent(d.url, expected, 'after a full replay (no snapshot)');
    await d.close();

    const child = await spawnDaemon({ siteDir, env: { TZ: 'UTC' } });
    const late = await post(child.url, body('zz', '1.10'));
    expected.set('zz', late.text);
    child.child.kill('SIGKILL');
    assert.is(await child.exited, 'SIGKILL');
    d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
    await assertCurrent(d.url, expected, 'after kill -9');
    const files = fs.readdirSync(siteDir).filter((n) => n.startsWith('site_'));
    assert.is(files.filter((n) => fs.readFileSync(path.join(siteDir, n), 'utf8').endsWith(`${late.text}\n`)).length, 1, 'the line is in its file');
    await d.close();
  } finally {
    removeDir(siteDir);
  }
});

test('whitespace between tokens goes; strings, escapes and number spellings stay', () =>
  withTestDaemon({ clock: new ManualClock(T0), env: { TZ: 'UTC' } }, async (d: TestDaemon) => {
    const sent = '{\n\t"type" : "note" ,\r\n "data" : { "text" : "a  b\\n\\t c" , "esc" : "\\u00e9\\/" , "n" : [ 1.0 , -0.0 ] } ,\n "meta" : { } }\n';
    const answer = await post(d.url, sent);
    assert.is(answer.text, `{"seq":1,"ts":"${T0}","type":"note","data":{"text":"a  b\\n\\t c","esc":"\\u00e9\\/","n":[1.0,-0.0]},"meta":{}}`);
    assert.is(fs.readFileSync(path.join(d.siteDir, SITE_FILE), 'utf8'), `${answer.text}\n`);
  }));

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

// [name, body, status, exact answer (for 200: the data of the envelope)]
const NESTING: Array<[string, string, number, string]> = [
  ['data nested 64 levels is accepted', `{"type":"x","data":${nested(64)}}`, 200, nested(64)],
  ['meta nested 64 levels is accepted', `{"type":"x","data":1,"meta":{"m":${nested(63)}}}`, 200, '1'],
  ['data nested 65 levels', `{"type":"x","data":${nested(65)}}`, 422,
    '{"detail":"data nests 65 levels of arrays and objects; at most 64 are accepted.","code":"INVALID_BODY"}'],
  ['data of 65 nested objects', `{"type":"x","data":${deepObject(65)}}`, 422,
    '{"detail":"data nests 65 levels of arrays and objects; at most 64 are accepted.","code":"INVALID_BODY"}'],
  ['meta nested 65 levels', `{"type":"x","data":1,"meta":{"m":${nested(64)}}}`, 422,
    '{"detail":"meta nests 65 levels of arrays and objects; at most 64 are accepted.","code":"INVALID_BODY"}'],
  ['data nested 5,000 levels', `{"type":"x","data":${nested(5000)}}`, 422,
    '{"detail":"data nests 5000 levels of arrays and objects; at most 64 are accepted.","code":"INVALID_BODY"}'],
  ['data nested 300,000 levels', `{"type":"x","data":${nested(300_000)}}`, 422,
    '{"detail":"data nests 300000 levels of arrays and objects; at most 64 are accepted.","code":"INVALID_BODY"}'],
  ['an unknown key nested 5,000 levels is ignored', `{"type":"x","data":1,"extra":${nested(5000)}}`, 200, '1'],
  ['5,000 open brackets never closed', `{"type":"x","data":${'['.repeat(5000)}`, 400, malformed(`{"type":"x","data":${'['.repeat(5000)}`)],
];

function malformed(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return JSON.stringify({ detail: `The body is not valid JSON: ${(error as Error).message}.`, code: 'MALFORMED_JSON' });
  }
  throw new Error('the text parses');
}

for (const [name, text, status, expected] of NESTING) {
  test(`nesting: ${name}`, () => withTestDaemon({ flags: { maxBody: 2_000_000 } }, async (d) => {
    const answer = await post(d.url, text);
    assert.is(answer.status, status, answer.text.slice(0, 200));
    if (status === 200) assert.ok(answer.text.includes(`"data":${expected},"meta"`), answer.text.slice(0, 200));
    else assert.is(answer.text, expected);
    assert.equal(d.logs.filter((l) => / (ERROR|WARN) /.test(l)), [], 'nothing logged: no stack trace');
    assert.is((await request(d.url, '/health')).status, 200);
  }));
}

test.run();
