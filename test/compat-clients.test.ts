import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// The exact requests of the original PANOPTES clients (the seed's and panoptes-utils 0.5.3),
// as Python's json.dumps spells them (", " and ": " separators, floats as 1.0), each with
// the exact answer, file content and current view (docs/http-api.md, issue 12).

const T0 = '2026-03-17T20:05:48.955Z';
const SITE_FILE = 'site_20260317.ndjson';

function withDaemon(fn: (d: TestDaemon) => Promise<void>): Promise<void> {
  return withTestDaemon({ clock: new ManualClock(T0), env: { TZ: 'UTC' } }, fn);
}

/** POST `body` as requests' `json=` sends it (or no body at all for undefined). */
function post(d: TestDaemon, pathname: string, body: string | undefined) {
  return request(d.url, pathname, body === undefined
    ? { method: 'POST' }
    : { method: 'POST', body, headers: { 'content-type': 'application/json' } });
}

/** The telemetry files under the site directory (not .meridian/) with their content. */
function telemetryFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath ?? entry.path, entry.name);
    const rel = path.relative(dir, full);
    if (entry.isFile() && !rel.startsWith('.meridian')) out[rel] = fs.readFileSync(full, 'utf8');
  }
  return out;
}

const runRecord = (d: TestDaemon, dir: string, id: string, meta = `{"run_id":"${id}"}`) =>
  `{"run_dir":${JSON.stringify(path.join(d.siteDir, dir))},"run_id":"${id}","meta":${meta},"started_at":"${T0}"}`;

// [name, body as sent (undefined: no body), answer, files after, GET /ready run_active]
const RUN_STARTS: Array<[string, string | undefined, (d: TestDaemon) => string, Record<string, string>]> = [
  ['0.5.3 start_run(run_dir="runs/<sequence id>")', '{"run_dir": "runs/PAN001_14d3bd_20260317T200000", "run_id": null, "meta": {}}',
    (d) => runRecord(d, 'runs/PAN001_14d3bd_20260317T200000', '001'), { 'runs/PAN001_14d3bd_20260317T200000/telemetry.ndjson': '' }],
  ['0.5.3 start_run() with nothing', '{"run_dir": null, "run_id": null, "meta": {}}', (d) => runRecord(d, '001', '001'), { '001/telemetry.ndjson': '' }],
  ['every field null', '{"run_dir": null, "run_id": null, "meta": null}', (d) => runRecord(d, '001', '001'), { '001/telemetry.ndjson': '' }],
  ['a null body', 'null', (d) => runRecord(d, '001', '001'), { '001/telemetry.ndjson': '' }],
  ['no body', undefined, (d) => runRecord(d, '001', '001'), { '001/telemetry.ndjson': '' }],
  ['0.5.3 start_run(run_id="042")', '{"run_dir": null, "run_id": "042", "meta": {"run_id": "042"}}', (d) => runRecord(d, '042', '042'), { '042/telemetry.ndjson': '' }],
  ['the seed client start_run("runs/x", meta)', '{"run_dir": "runs/x", "meta": {"observer": "pocs", "exptime": 120.0}}',
    (d) => runRecord(d, 'runs/x', '001', '{"observer":"pocs","exptime":120.0,"run_id":"001"}'), { 'runs/x/telemetry.ndjson': '' }],
];

for (const [name, body, answer, files] of RUN_STARTS) {
  test(`run start, ${name}: exact record, run active, view untouched`, () => withDaemon(async (d) => {
    const weather = await post(d, '/event', '{"type": "weather", "data": {"safe": true}, "make_current": true, "meta": {}}');
    const started = await post(d, '/run/start', body);
    assert.is(started.status, 200, started.text);
    assert.is(started.text, answer(d));
    assert.is((await request(d.url, '/run')).text, answer(d));
    assert.is((await request(d.url, '/ready')).json.run_active, true);
    assert.equal(telemetryFiles(d.siteDir), { [SITE_FILE]: `${weather.text}\n`, ...files });
    assert.is((await request(d.url, '/current?freshness=false')).text, `{"current":{"weather":${weather.text}}}`);
  }));
}

const line = (seq: number, type: string, data: string, meta = '{}', ts = T0) =>
  `{"seq":${seq},"ts":"${ts}","type":"${type}","data":${data},"meta":${meta}}`;

// [name, body as sent, answer, site file (undefined: none), current view afterwards]
const EVENTS: Array<[string, string, string, string | undefined, string]> = [
  ['the seed client post_event', '{"type": "weather", "data": {"safe": true, "temp": -10.0, "wind": 4}, "make_current": true, "meta": {}}',
    line(1, 'weather', '{"safe":true,"temp":-10.0,"wind":4}'), line(1, 'weather', '{"safe":true,"temp":-10.0,"wind":4}'),
    `{"weather":${line(1, 'weather', '{"safe":true,"temp":-10.0,"wind":4}')}}`],
  ['the seed client insert (make_current false)', '{"type": "observations", "data": {"exptime": 120.0}, "make_current": false, "meta": {}}',
    line(1, 'observations', '{"exptime":120.0}'), line(1, 'observations', '{"exptime":120.0}'), '{}'],
  ['the seed client\'s "stream" key is ignored', '{"type": "weather", "data": 1.5, "stream": null, "make_current": true, "meta": {}}',
    line(1, 'weather', '1.5'), line(1, 'weather', '1.5'), `{"weather":${line(1, 'weather', '1.5')}}`],
  ['0.5.3 permanent, with its own ts', '{"type": "power", "data": {"mains": true, "ac_ok": 1.0}, "make_current": true, "meta": {}, "store_permanently": true, "ts": "2026-03-17T19:59:58.123Z"}',
    line(1, 'power', '{"mains":true,"ac_ok":1.0}', '{}', '2026-03-17T19:59:58.123Z'), line(1, 'power', '{"mains":true,"ac_ok":1.0}', '{}', '2026-03-17T19:59:58.123Z'),
    `{"power":${line(1, 'power', '{"mains":true,"ac_ok":1.0}', '{}', '2026-03-17T19:59:58.123Z')}}`],
  ['0.5.3 ephemeral (store_permanently false): no line, but current', '{"type": "weather", "data": {"safe": false, "sky_temp": -21.50}, "make_current": true, "meta": {}, "store_permanently": false, "ts": "2026-03-17T20:05:48.000Z"}',
    line(1, 'weather', '{"safe":false,"sky_temp":-21.50}', '{}', '2026-03-17T20:05:48.000Z'), undefined,
    `{"weather":${line(1, 'weather', '{"safe":false,"sky_temp":-21.50}', '{}', '2026-03-17T20:05:48.000Z')}}`],
  ['0.5.3 ephemeral and make_current false: a seq, nothing else', '{"type": "status", "data": {"state": "parked"}, "make_current": false, "meta": {}, "store_permanently": false, "ts": "2026-03-17T20:05:48.955Z"}',
    line(1, 'status', '{"state":"parked"}'), undefined, '{}'],
  ['0.5.3 with a ts in another zone (normalised to UTC)', '{"type": "power", "data": 230, "make_current": true, "meta": {"unit": "V"}, "store_permanently": true, "ts": "2026-03-17T17:05:48.955123-03:00"}',
    line(1, 'power', '230', '{"unit":"V"}'), line(1, 'power', '230', '{"unit":"V"}'), `{"power":${line(1, 'power', '230', '{"unit":"V"}')}}`],
];

for (const [name, body, answer, file, current] of EVENTS) {
  test(`event, ${name}: exact answer, file and view`, () => withDaemon(async (d) => {
    const posted = await post(d, '/event', body);
    assert.is(posted.status, 200, posted.text);
    assert.is(posted.text, answer);
    assert.equal(telemetryFiles(d.siteDir), file === undefined ? {} : { [SITE_FILE]: `${file}\n` });
    assert.is((await request(d.url, '/current?freshness=false')).text, `{"current":${current}}`);
    // the next permanent event takes the next seq: an ephemeral one used its seq
    const next = await post(d, '/event', '{"type": "next", "data": null, "make_current": false, "meta": {}}');
    assert.is(next.json.seq, 2);
  }));
}

test('a POCS run through 0.5.3: events get the run id, ephemeral ones no line, stop keeps the view', () => withDaemon(async (d) => {
  await post(d, '/run/start', '{"run_dir": "runs/seq1", "run_id": null, "meta": {}}');
  const kept = await post(d, '/event', '{"type": "camera", "data": {"exptime": 60.0}, "make_current": true, "meta": {"camera": "14d3bd"}, "store_permanently": true, "ts": "2026-03-17T20:05:48.955Z"}');
  const passing = await post(d, '/event', '{"type": "weather", "data": {"safe": true}, "make_current": true, "meta": {}, "store_permanently": false, "ts": "2026-03-17T20:05:48.955Z"}');
  assert.is(kept.text, line(1, 'camera', '{"exptime":60.0}', '{"camera":"14d3bd","run_id":"001"}'));
  assert.is(passing.text, line(2, 'weather', '{"safe":true}', '{"run_id":"001"}'));
  const stopped = await post(d, '/run/stop', undefined);
  assert.is(stopped.text, `${runRecord(d, 'runs/seq1', '001').slice(0, -1)},"stopped_at":"${T0}"}`);
  assert.equal(telemetryFiles(d.siteDir), { 'runs/seq1/telemetry.ndjson': `${kept.text}\n` });
  assert.is((await request(d.url, '/current?freshness=false')).text, `{"current":{"camera":${kept.text},"weather":${passing.text}}}`);
  // the next night: a new id, although run_dir is not under the site directory's numbers
  const next = await post(d, '/run/start', '{"run_dir": "runs/seq2", "run_id": null, "meta": {}}');
  assert.is(next.json.run_id, '002');
}));

test.run();
