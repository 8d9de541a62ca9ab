import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../lib/version.js';
import { ManualClock } from './helpers/clock.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { readLines } from './helpers/tmp.js';

// The HTTP API against the contract: envelopes, files, seqs, the current view.
// The clock is injected and TZ=UTC, so ts values and site file names are exact.

const T0 = '2026-03-17T20:05:48.955Z';
const SITE_FILE = 'site_20260317.ndjson';

function withDaemon(fn: (d: TestDaemon, clock: ManualClock) => Promise<void>): Promise<void> {
  const clock = new ManualClock(T0);
  return withTestDaemon({ clock, env: { TZ: 'UTC' } }, (d) => fn(d, clock));
}

const fileText = (file: string) => fs.readFileSync(file, 'utf8');

test('GET /health and /ready answer with the exact bodies', () => withDaemon(async (d) => {
  const health = await request(d.url, '/health');
  assert.is(health.status, 200);
  assert.is(health.text, '{"ok":true}');
  assert.is(health.headers['content-type'], 'application/json');
  const ready = await request(d.url, '/ready');
  assert.is(ready.text, JSON.stringify({ ready: true, run_active: false, version: VERSION }));
  assert.match(VERSION, /^\d+\.\d+\.\d+/);
}));

test('POST /event answers the envelope, and the file holds the same line byte for byte', () => withDaemon(async (d) => {
  const answer = await postEvent(d.url, { meta: { source: 'ws1' }, data: { temp: -3.5, wind: [1, 2], note: 'é"\\' }, type: 'weather' });
  assert.is(answer.status, 200);
  assert.is(answer.headers['content-type'], 'application/json');
  const line = '{"seq":1,"ts":"2026-03-17T20:05:48.955Z","type":"weather","data":{"temp":-3.5,"wind":[1,2],"note":"é\\"\\\\"},"meta":{"source":"ws1"}}';
  assert.is(answer.text, line);
  assert.equal(Object.keys(answer.json), ['seq', 'ts', 'type', 'data', 'meta']);
  assert.is(fileText(path.join(d.siteDir, SITE_FILE)), `${line}\n`);
  assert.is((await request(d.url, '/current/weather')).text, line);
  assert.is((await request(d.url, '/current')).text, `{"current":{"weather":${line}}}`);
}));

test('ts is UTC with milliseconds and Z, also on a whole second', () => withDaemon(async (d, clock) => {
  clock.set('2026-03-17T20:06:00.000Z');
  const answer = await postEvent(d.url, { type: 'weather', data: 1 });
  assert.is(answer.json.ts, '2026-03-17T20:06:00.000Z');
  assert.match(answer.json.ts, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
}));

test('meta defaults to {} and is exactly what the caller sent outside a run', () => withDaemon(async (d) => {
  assert.equal((await postEvent(d.url, { type: 'a', data: 1 })).json.meta, {});
  const meta = { run_id: 'mine', nested: { k: [1, null] } };
  assert.equal((await postEvent(d.url, { type: 'a', data: 1, meta })).json.meta, meta);
}));

test('seq: site and run counters are separate; the site counter continues after the run', () => withDaemon(async (d) => {
  const seqs = async (n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await postEvent(d.url, { type: 'weather', data: i })).json.seq);
    return out;
  };
  assert.equal(await seqs(2), [1, 2]);
  assert.is((await request(d.url, '/run/start', { body: { run_id: 'n1' } })).status, 200);
  assert.equal(await seqs(3), [1, 2, 3]);
  assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
  assert.equal(await seqs(2), [3, 4]);
  const site = readLines(path.join(d.siteDir, SITE_FILE)) as { seq: number; meta: object }[];
  assert.equal(site.map((e) => e.seq), [1, 2, 3, 4]);
  const run = readLines(path.join(d.siteDir, 'n1', 'telemetry.ndjson')) as { seq: number; meta: object }[];
  assert.equal(run.map((e) => [e.seq, e.meta]), [[1, { run_id: 'n1' }], [2, { run_id: 'n1' }], [3, { run_id: 'n1' }]]);
}));

test('make_current false: written with a seq, the current view unchanged', () => withDaemon(async (d) => {
  const first = await postEvent(d.url, { type: 'weather', data: 'shown' });
  const hidden = await postEvent(d.url, { type: 'weather', data: 'hidden', make_current: false });
  assert.is(hidden.status, 200);
  assert.is(hidden.json.seq, 2);
  assert.equal(Object.keys(hidden.json), ['seq', 'ts', 'type', 'data', 'meta']);
  const only = await postEvent(d.url, { type: 'calibration', data: 'x', make_current: false });
  assert.is(only.json.seq, 3);
  assert.is((await request(d.url, '/current/weather')).text, first.text);
  assert.is((await request(d.url, '/current/calibration')).status, 404);
  assert.is((await request(d.url, '/current')).text, `{"current":{"weather":${first.text}}}`);
  assert.is(fileText(path.join(d.siteDir, SITE_FILE)), `${first.text}\n${hidden.text}\n${only.text}\n`);
  const shown = await postEvent(d.url, { type: 'weather', data: 'again', make_current: true });
  assert.is(shown.json.seq, 4);
  assert.is((await request(d.url, '/current/weather')).text, shown.text);
}));

test('current view: the latest reading of every type, whatever its target; run start and stop change nothing', () => withDaemon(async (d) => {
  const weather = await postEvent(d.url, { type: 'weather', data: 'site' });
  const domeSite = await postEvent(d.url, { type: 'dome', data: 'site' });
  await request(d.url, '/run/start', { body: { run_id: 'n1' } });
  assert.is((await request(d.url, '/current')).text, `{"current":{"dome":${domeSite.text},"weather":${weather.text}}}`);
  const domeRun = await postEvent(d.url, { type: 'dome', data: 'run' });
  const camera = await postEvent(d.url, { type: 'camera', data: 'run' });
  const afterRun = `{"current":{"camera":${camera.text},"dome":${domeRun.text},"weather":${weather.text}}}`;
  assert.is((await request(d.url, '/current')).text, afterRun);
  assert.is((await request(d.url, '/current/dome')).text, domeRun.text);
  assert.is((await request(d.url, '/current/weather')).text, weather.text);
  // a reading taken during the run stays the newest of its type after the stop (docs/storage.md, current view)
  await request(d.url, '/run/stop', { method: 'POST' });
  assert.is((await request(d.url, '/current')).text, afterRun);
  assert.is((await request(d.url, '/current/dome')).text, domeRun.text);
  assert.is((await request(d.url, '/current/camera')).text, camera.text);
  const domeAfter = await postEvent(d.url, { type: 'dome', data: 'site again' });
  assert.is((await request(d.url, '/current/dome')).text, domeAfter.text);
}));

test('GET /current with nothing recorded is an empty object', () => withDaemon(async (d) => {
  assert.is((await request(d.url, '/current')).text, '{"current":{}}');
}));

// [name, type, request path]
const TYPE_PATHS: [string, string, string][] = [
  ['a space as %20', 'dome status', '/current/dome%20status'],
  ['a plus stays a plus', 'a+b', '/current/a+b'],
  ['a literal percent sign', '100%', '/current/100%25'],
  ['an encoded %20 in the name', 'a%20b', '/current/a%2520b'],
  ['accented letters', 'température', `/current/${encodeURIComponent('température')}`],
  ['CJK', '望遠鏡', `/current/${encodeURIComponent('望遠鏡')}`],
  ['an emoji', '\u{1F52D}', '/current/%F0%9F%94%AD'],
  ['a slash as %2F', 'mount/axis', '/current/mount%2Faxis'],
];

for (const [name, type, urlPath] of TYPE_PATHS) {
  test(`GET /current/{event_type} is URL-decoded: ${name}`, () => withDaemon(async (d) => {
    const posted = await postEvent(d.url, { type, data: 1 });
    assert.is(posted.status, 200, posted.text);
    assert.is(posted.json.type, type);
    const answer = await request(d.url, urlPath);
    assert.is(answer.status, 200, `${urlPath}: ${answer.text}`);
    assert.is(answer.text, posted.text);
    assert.is(JSON.parse(fileText(path.join(d.siteDir, SITE_FILE))).type, type);
  }));
}

test('200 concurrent posts get seq 1..200 in file order, each answer its own seq', () => withDaemon(async (d) => {
  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => postEvent(d.url, { type: `t${i % 7}`, data: i })));
  assert.ok(answers.every((a) => a.status === 200));
  const seqs = answers.map((a) => a.json.seq as number).sort((a, b) => a - b);
  assert.equal(seqs, Array.from({ length: 200 }, (_, i) => i + 1));
  const lines = fileText(path.join(d.siteDir, SITE_FILE)).split('\n');
  assert.is(lines.pop(), '');
  assert.equal(lines.map((l) => JSON.parse(l).seq), Array.from({ length: 200 }, (_, i) => i + 1));
  for (const answer of answers) assert.is(lines[answer.json.seq - 1], answer.text);
}));

test('POST /shutdown answers, then the daemon stops', () => withTestDaemon({}, async (d) => {
  const answer = await request(d.url, '/shutdown', { method: 'POST' });
  assert.is(answer.status, 200);
  assert.is(answer.text, '{"shutting_down":true}');
  await d.daemon.closed;
  assert.not.ok(d.daemon.server.listening);
}));

test.run();
