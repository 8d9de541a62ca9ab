import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { postEvent, request } from './helpers/http.js';
import { withRestarts } from './helpers/restart.js';

// A site directory written by the original PANOPTES service (docs/storage.md): lines
// with an extra "stream" key, a seq that restarts after each restart of the service, gaps
// where ephemeral readings were, run directories under runs/. Meridian opens it, keeps
// every original line as it is, continues each target from its highest seq and never
// writes a seq already in a file.

/** An original line: json.dumps(envelope, separators=(",", ":")) with "stream" third. */
const original = (seq: number, ts: string, stream: string, type: string, data: string, meta = '{}') =>
  `{"seq":${seq},"ts":"${ts}","stream":"${stream}","type":"${type}","data":${data},"meta":${meta}}`;
const envelope = (seq: number, ts: string, type: string, data: string, meta = '{}') =>
  `{"seq":${seq},"ts":"${ts}","type":"${type}","data":${data},"meta":${meta}}`;

const RUN = 'runs/PAN001_14d3bd_20260316T200000';
const FIXTURE: Record<string, string[]> = {
  'site_20260316.ndjson': [
    original(1, '2026-03-16T12:00:01.000Z', 'site', 'weather', '{"safe":true,"temp":10.0}'),
    original(2, '2026-03-16T12:00:02.000Z', 'site', 'power', '{"mains":true,"v":230.0}'),
    // the service restarted: its seq began again
    original(1, '2026-03-16T13:00:00.000Z', 'site', 'weather', '{"safe":true,"temp":9.50}'),
    // seq 2 and 3 were ephemeral: a gap
    original(4, '2026-03-16T13:00:03.000Z', 'site', 'dome', '"closed"'),
  ],
  [`${RUN}/telemetry.ndjson`]: [
    // the original's run counter continued over runs and restarted with the service
    original(7, '2026-03-16T20:00:00.000Z', 'run', 'camera', '{"exptime":120.0}', '{"run_id":"001"}'),
    original(8, '2026-03-16T20:02:00.000Z', 'run', 'weather', '{"safe":true,"temp":1e400}', '{"run_id":"001"}'),
    original(1, '2026-03-16T22:00:00.000Z', 'run', 'camera', '{"exptime":60.0}', '{"run_id":"001"}'),
  ],
  'site_20260317.ndjson': [
    original(5, '2026-03-17T12:00:00.000Z', 'site', 'power', '{"mains":false,"v":12345678901234567890}'),
    original(9, '2026-03-17T12:00:05.000Z', 'site', 'dome', '"open"'),
    original(1, '2026-03-17T13:00:00.000Z', 'site', 'power', '{"mains":true,"v":-0.0}'),
  ],
};

function writeFixture(dir: string): void {
  for (const [name, lines] of Object.entries(FIXTURE)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), lines.map((l) => `${l}\n`).join(''));
  }
}

/** The lines a file holds beyond the fixture's (which must be untouched), parsed. */
function added(dir: string, name: string): Array<{ seq: number; data: unknown }> {
  const text = fs.readFileSync(path.join(dir, name), 'utf8');
  const before = (FIXTURE[name] ?? []).map((l) => `${l}\n`).join('');
  assert.ok(text.startsWith(before), `${name}: the original lines are untouched`);
  return text.slice(before.length).split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

const seqsOf = (name: string) => (FIXTURE[name] ?? []).map((l) => (JSON.parse(l) as { seq: number }).seq);

test('an original site directory opens, continues from the highest seq and never writes a seq already in a file', () => withRestarts(async (site) => {
  const dir = site.dir;
  writeFixture(dir);
  let d = await site.start();
  assert.not.match(d.stderr(), / ERROR /);
  assert.match(d.stderr(), 'recovered: site seq 9 (7 line(s) replayed), 4 type(s) current, run none');
  // the view from the newest line of each type, in the envelope's five keys, numbers as written
  const expected = {
    camera: envelope(1, '2026-03-16T22:00:00.000Z', 'camera', '{"exptime":60.0}', '{"run_id":"001"}'),
    dome: envelope(9, '2026-03-17T12:00:05.000Z', 'dome', '"open"'),
    power: envelope(1, '2026-03-17T13:00:00.000Z', 'power', '{"mains":true,"v":-0.0}'),
    weather: envelope(8, '2026-03-16T20:02:00.000Z', 'weather', '{"safe":true,"temp":1e400}', '{"run_id":"001"}'),
  };
  const current = `{"current":{${Object.entries(expected).map(([t, e]) => `"${t}":${e}`).join(',')}}}`;
  assert.is((await request(d.url, '/current?freshness=false')).text, current);
  assert.is((await request(d.url, '/current/weather')).text, expected.weather);

  // the site continues after the highest seq (9), not after the last line's (1)
  assert.is((await postEvent(d.url, { type: 'power', data: 1 })).json.seq, 10);
  // a new POCS night: the derived id does not repeat the original's "001"
  const run = await request(d.url, '/run/start', { body: { run_dir: 'runs/PAN001_14d3bd_20260317T200000', run_id: null, meta: {} } });
  assert.is(run.json.run_id, '002');
  await request(d.url, '/run/stop', { method: 'POST' });
  // POCS reusing the original run directory: its seq continues after 8, not after 1
  await request(d.url, '/run/start', { body: { run_dir: RUN, run_id: null, meta: {} } });
  assert.is((await postEvent(d.url, { type: 'camera', data: 2 })).json.seq, 9);
  await request(d.url, '/run/stop', { method: 'POST' });
  await site.stop();
  d = await site.start();
  assert.match(d.stderr(), 'recovered: site seq 10 (0 line(s) replayed), 4 type(s) current, run none');
  assert.is((await postEvent(d.url, { type: 'dome', data: 'shut' })).json.seq, 11);
  await site.stop();

  const newSite = fs.readdirSync(dir).filter((n) => /^site_/.test(n)).flatMap((n) => added(dir, n));
  assert.equal(newSite.map((e) => e.seq).sort((a, b) => a - b), [10, 11]);
  const originalSeqs = [...seqsOf('site_20260316.ndjson'), ...seqsOf('site_20260317.ndjson')];
  for (const e of newSite) assert.not.ok(originalSeqs.includes(e.seq), `seq ${e.seq} is new`);
  assert.equal(added(dir, `${RUN}/telemetry.ndjson`).map((e) => e.seq), [9]);
  assert.equal(fs.readdirSync(path.join(dir, 'runs')).sort(), ['PAN001_14d3bd_20260316T200000', 'PAN001_14d3bd_20260317T200000']);
}));

test('an original directory with a torn last line: the line is cut, the rest opens', () => withRestarts(async (site) => {
  writeFixture(site.dir);
  fs.appendFileSync(path.join(site.dir, 'site_20260317.ndjson'), '{"seq":2,"ts":"2026-03-17T13:00:0');
  const d = await site.start();
  assert.match(d.stderr(), 'cut a torn final line of 33 bytes');
  assert.is((await postEvent(d.url, { type: 'power', data: 1 })).json.seq, 10);
}));

test.run();
