import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { freePort, ROOT, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { nightEvents, recordNight, temperature } from './helpers/night-fixture.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The night report on a generated night with known intervals (test/helpers/night-fixture.ts):
// every total as worked out by hand, counts exact, weather against a brute-force pass, the
// JSON and Markdown against golden files, the text within 80 columns, every mistake refused.

const GOLDEN = path.join(ROOT, 'test', 'golden');
let d: TestDaemon;

test.before(async () => {
  const siteDir = tempDir();
  recordNight(siteDir);
  d = await startTestDaemon({ siteDir, clock: new ManualClock('2026-03-18T20:00:00.000Z'), env: { TZ: 'America/New_York' }, freshnessIntervalMs: 0 });
});
test.after(async () => {
  await d.close();
  removeDir(d.siteDir);
});

/** Compare with a golden file (UPDATE_GOLDEN=1 writes it instead). */
function golden(name: string, actual: string): void {
  const file = path.join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, actual);
  assert.fixture(actual, fs.readFileSync(file, 'utf8'));
}

test('every total of the night is what its intervals give', async () => {
  const r = (await request(d.url, '/reports/night/20260317')).json as Record<string, any>;
  const rows: [string, unknown, unknown][] = [
    ['span', [r.from, r.to, r.seconds, r.complete], ['2026-03-17T16:00:00.000Z', '2026-03-18T16:00:00.000Z', 86400, true]],
    ['safe/unsafe/unknown', [r.safety.safe_s, r.safety.unsafe_s, r.safety.unknown_s], [55800, 28800, 1800]],
    ['reasons', r.safety.reasons, [{ reason: 'daylight', seconds: 25200 }, { reason: 'rain', seconds: 3600 }, { reason: 'wind', seconds: 3600 }]],
    ['stale', r.stale, [{ type: 'camera', seconds: 3600, times: 1 }, { type: 'power', seconds: 600, times: 1 }]],
    ['gaps', r.gaps.list, [{ from: '2026-03-18T02:00:00.000Z', to: '2026-03-18T02:30:00.000Z', seconds: 1800 }]],
    ['states', r.states.map((s: any) => [s.state, s.seconds]),
      [['parked', 42900], ['sleeping', 25500], ['observing', 15540], ['parking', 300], ['ready', 300], ['scheduling', 60]]],
    ['alarms', [r.alarms.count, r.alarms.listed.map((a: any) => a.to)], [2, ['unack', 'acked']]],
    ['runs', r.runs, [{ run_id: '001', first: '2026-03-17T23:00:00.000Z', last: '2026-03-18T04:59:00.000Z', events: 338 }]],
  ];
  for (const [name, actual, expected] of rows) assert.equal(actual, expected, name);
  const counts: Record<string, number> = {};
  for (const e of nightEvents()) counts[e.type] = (counts[e.type] ?? 0) + 1;
  assert.equal(r.counts, Object.fromEntries(Object.entries(counts).sort()));
  assert.is(r.events, nightEvents().length);
});

test('weather min/mean/max against a brute-force pass; min and max keep their spelling', async () => {
  const answer = await request(d.url, '/reports/night/20260317');
  const temps = nightEvents().filter((e) => e.type === 'weather').map((e) => Number(temperature(e.t)));
  const r = answer.json as Record<string, any>;
  assert.is(r.weather.fields.temp_c.count, temps.length);
  assert.ok(Math.abs(r.weather.fields.temp_c.mean - temps.reduce((a, b) => a + b, 0) / temps.length) < 1e-9);
  assert.ok(answer.text.includes('"temp_c":{"count":1411,"min":-12.50,'), 'min as recorded');
  assert.ok(answer.text.includes(',"max":30.0,'), 'max as recorded');
  assert.equal(Object.keys(r.weather.fields), ['humidity', 'temp_c']); // "sky" is no number
});

test('the JSON answer, and telemetry night --json, are the golden file', async () => {
  const answer = await request(d.url, '/reports/night/20260317');
  assert.is(answer.status, 200);
  golden('night-20260317.json', `${answer.text}\n`);
  const run = await cli(['night', '20260317', '--json', '--port', String(d.port)]);
  assert.equal([run.code, run.stderr], [0, '']);
  assert.fixture(run.stdout, `${answer.text}\n`);
});

test('telemetry night --md is the golden file; the text fits 80 columns', async () => {
  const md = await cli(['night', '20260317', '--md', '--port', String(d.port)]);
  assert.equal([md.code, md.stderr], [0, '']);
  golden('night-20260317.md', md.stdout);
  const text = await cli(['night', '20260317', '--port', String(d.port)]);
  assert.equal([text.code, text.stderr], [0, '']);
  golden('night-20260317.txt', text.stdout);
  const wide = text.stdout.split('\n').filter((l) => [...l].length > 80);
  assert.equal(wide, []);
});

test('the report of a run covers its first event to its last', async () => {
  const r = (await request(d.url, '/reports/night?run=001')).json as Record<string, any>;
  assert.equal([r.night, r.run_id, r.from, r.until, r.events, r.complete], [null, '001', '2026-03-17T23:00:00.000Z', '2026-03-18T04:59:00.000Z', 338, true]);
  assert.equal([r.safety.safe_s, r.safety.unsafe_s, r.safety.unknown_s], [16200, 3540, 1800]);
});

test('DST nights are 23 and 25 hours long, from local noon to local noon', async () => {
  const rows: [string, string, string, number][] = [
    ['20260307', '2026-03-07T17:00:00.000Z', '2026-03-08T16:00:00.000Z', 82800],
    ['20251101', '2025-11-01T16:00:00.000Z', '2025-11-02T17:00:00.000Z', 90000],
    ['20260316', '2026-03-16T16:00:00.000Z', '2026-03-17T16:00:00.000Z', 86400],
  ];
  for (const [day, from, to, seconds] of rows) {
    const r = (await request(d.url, `/reports/night/${day}`)).json as Record<string, any>;
    assert.equal([r.from, r.to, r.seconds, r.events, r.safety.unknown_s, r.gaps.list], [from, to, seconds, 0, seconds, [{ from, to, seconds }]], day);
  }
});

test('a verdict flapping all night: every change counted and timed, the first 10,000 listed', async () => {
  // 10,002 verdicts every 5 s from 2026-03-10T16:00Z (local noon), safe on even ones, as a daemon recorded them (callers cannot post meridian.safety)
  const lines = Array.from({ length: 10_002 }, (_, k) =>
    `{"seq":${k + 1},"ts":"${new Date(Date.parse('2026-03-10T16:00:00Z') + k * 5000).toISOString()}","type":"meridian.safety","data":{"safe":${k % 2 === 0},"reasons":${k % 2 === 0 ? '[]' : '["wind"]'}},"meta":{}}\n`);
  const siteDir = tempDir();
  fs.writeFileSync(path.join(siteDir, 'site_20260310.ndjson'), lines.join(''));
  const flapping = await startTestDaemon({ siteDir, clock: new ManualClock('2026-03-18T20:00:00.000Z'), env: { TZ: 'America/New_York' }, freshnessIntervalMs: 0 });
  let r: Record<string, any>;
  try {
    r = (await request(flapping.url, '/reports/night/20260310')).json as Record<string, any>;
  } finally {
    await flapping.close();
    removeDir(siteDir);
  }
  assert.equal([r.safety.change_count, r.safety.changes.length, r.safety.safe_s, r.safety.unsafe_s, r.safety.unknown_s, r.safety.reasons],
    [10_002, 10_000, 25005, 25000, 36395, [{ reason: 'wind', seconds: 25000 }]]);
});

test('mistakes are refused with one sentence and a stable code', async () => {
  const rows: [string, number, string, string][] = [
    ['/reports/night/2026031', 422, 'INVALID_NIGHT', 'The night must be a site day as YYYYMMDD (the date its evening falls on), such as 20260317; got "2026031".'],
    ['/reports/night/20260230', 422, 'INVALID_NIGHT', 'The night must be a site day as YYYYMMDD (the date its evening falls on), such as 20260317; got "20260230".'],
    ['/reports/night/20260317?gap=5', 422, 'INVALID_QUERY', 'unknown query parameter "gap"; this path takes none.'],
    ['/reports/night', 422, 'INVALID_QUERY', 'run must be given: the id of the run to report on (or ask for a night: /reports/night/YYYYMMDD).'],
    ['/reports/night?run=nope', 422, 'INVALID_QUERY', 'run nope is not in the timeline of this site directory (runs recorded before it existed are not either).'],
    ['/reports/night?run=a/b', 422, 'INVALID_QUERY', 'run must be a run id (letters, digits, \'.\', \'_\', \'-\') or site; got "a/b".'],
  ];
  for (const [url, status, code, detail] of rows) {
    const answer = await request(d.url, url);
    assert.equal([answer.status, answer.json], [status, { detail, code }], url);
  }
  const usage: [string[], string][] = [
    [['night', '2026-03-17'], 'telemetry: the night must be a site day as YYYYMMDD, such as 20260317; got "2026-03-17" (see "telemetry night --help")'],
    [['night', '20260317', '--run', '001'], 'telemetry: give a night (YYYYMMDD) or --run ID, not both (see "telemetry night --help")'],
    [['night', '--json', '--md'], 'telemetry: --json, --md and --html cannot be used together (see "telemetry night --help")'],
  ];
  for (const [args, message] of usage) {
    const run = await cli([...args, '--port', String(d.port)]);
    assert.equal([run.code, run.stdout, run.stderr.split('\n')[0]], [2, '', message], args.join(' '));
  }
  const bad = await cli(['night', '20260230', '--port', String(d.port)]);
  assert.equal([bad.code, bad.stdout], [1, '']);
  const unwritable = await cli(['night', '20260317', '--html', '/nonexistent/n.html', '--port', String(d.port)]);
  assert.equal([unwritable.code, unwritable.stdout, unwritable.stderr],
    [2, '', 'telemetry: --html /nonexistent/n.html cannot be written (ENOENT) (see "telemetry night --help")\n']);
  const none = await cli(['night', '20260317', '--port', String(await freePort())]);
  assert.equal([none.code, none.stdout], [3, '']);
});

test.run();
