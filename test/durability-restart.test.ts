import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request, postEvent } from './helpers/http.js';
import { withRestarts } from './helpers/restart.js';
import { readLines } from './helpers/tmp.js';

// Restart continuity through real processes: clean stops, kill -9, torn lines, snapshots.
// Each test's last daemon must stop cleanly (exit 0) at the end (withRestarts).

type Env = { seq: number; ts: string; type: string; data: unknown; meta: Record<string, unknown> };

function siteFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => /^site_\d{8}\.ndjson$/.test(n)).sort().map((n) => path.join(dir, n));
}

function allSiteLines(dir: string): Env[] {
  return siteFiles(dir).flatMap((f) => readLines(f) as Env[]);
}

test('after a clean stop: seq continues, current view, held readings and the active run come back', () => withRestarts(async (site) => {
  let d = await site.start();
  await postEvent(d.url, { type: 'weather', data: { t: 1 } });
  await postEvent(d.url, { type: 'dome', data: 'open' });
  const held = await postEvent(d.url, { type: 'weather', data: { t: 2 }, make_current: false });
  assert.is(held.json.seq, 3);
  const run = await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'n1' } });
  const runEvent = await postEvent(d.url, { type: 'camera', data: { exp: 30 } });
  await postEvent(d.url, { type: 'camera', data: { exp: 60 }, make_current: false });
  const before = await request(d.url, '/current?freshness=false');
  await site.stop();

  d = await site.start();
  const after = await request(d.url, '/current?freshness=false');
  assert.is(after.text, before.text);
  assert.equal(Object.keys(after.json.current), ['camera', 'dome', 'weather']);
  assert.equal(after.json.current.weather.data, { t: 1 });
  assert.equal(after.json.current.camera, runEvent.json);
  const again = await request(d.url, '/run');
  assert.equal(again.json, run.json);
  const next = await postEvent(d.url, { type: 'camera', data: { exp: 90 } });
  assert.is(next.json.seq, 3);
  await request(d.url, '/run/stop', { method: 'POST' });
  const siteEvent = await postEvent(d.url, { type: 'power', data: 230 });
  assert.is(siteEvent.json.seq, 4);
}));

test('kill -9 during a burst of concurrent posts loses no acknowledged event', () => withRestarts(async (site) => {
  let d = await site.start();
  const acked: Env[] = [];
  let killed = false;
  const worker = async (w: number) => {
    for (let i = 0; i < 400 && !killed; i++) {
      try {
        const answer = await postEvent(d.url, { type: `sensor-${w % 5}`, data: { w, i } });
        if (answer.status === 200) acked.push(answer.json);
      } catch {
        return; // the daemon died under us: this request was never acknowledged
      }
      if (acked.length >= 300 && !killed) {
        killed = true;
        d.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, (_, w) => worker(w)));
  assert.ok(killed, 'the burst reached the kill point');
  assert.is(await d.exited, 'SIGKILL');

  d = await site.start();
  const lines = allSiteLines(site.dir);
  const text = siteFiles(site.dir).map((f) => fs.readFileSync(f, 'utf8')).join('');
  assert.ok(text.endsWith('\n'), 'no torn final line');
  assert.equal(lines.map((l) => l.seq), lines.map((_, i) => i + 1), 'seq 1..N with no gap or repeat');
  const bySeq = new Map(lines.map((l) => [l.seq, JSON.stringify(l)]));
  for (const env of acked) assert.is(bySeq.get(env.seq), JSON.stringify(env), `acknowledged seq ${env.seq} is on disk as answered`);
  const next = await postEvent(d.url, { type: 'after', data: true });
  assert.is(next.json.seq, lines.length + 1);
  const latest: Record<string, Env> = {};
  for (const l of lines) latest[l.type] = l;
  const current = await request(d.url, '/current?freshness=false');
  delete current.json.current.after;
  assert.equal(current.json.current, latest);
}));

test('kill -9 with an active run: the run, its seq and its view come back', () => withRestarts(async (site) => {
  let d = await site.start();
  await postEvent(d.url, { type: 'weather', data: 1 });
  const run = await request(d.url, '/run/start', { method: 'POST', body: { meta: { target: 'M31' } } });
  assert.is(run.json.run_id, '001');
  await postEvent(d.url, { type: 'mount', data: 'tracking' });
  await postEvent(d.url, { type: 'mount', data: 'slewing', make_current: false });
  const before = await request(d.url, '/current?freshness=false');
  await site.kill9();

  d = await site.start();
  assert.equal((await request(d.url, '/run')).json, run.json);
  assert.equal((await request(d.url, '/ready')).json.run_active, true);
  assert.is((await request(d.url, '/current?freshness=false')).text, before.text);
  const next = await postEvent(d.url, { type: 'mount', data: 'parked' });
  assert.equal(next.json.seq, 3);
  assert.equal(next.json.meta, { run_id: '001' });
}));

test('snapshot plus tail: lines after the last snapshot are replayed, held readings stay held', () => withRestarts(async (site) => {
  let d = await site.start();
  await postEvent(d.url, { type: 'weather', data: 1 });
  await site.stop(); // writes the snapshot
  d = await site.start();
  await postEvent(d.url, { type: 'weather', data: 2 });
  await postEvent(d.url, { type: 'weather', data: 3, make_current: false });
  await postEvent(d.url, { type: 'power', data: 'mains' });
  const before = await request(d.url, '/current?freshness=false');
  assert.equal(before.json.current.weather.data, 2);
  await site.kill9();

  d = await site.start();
  assert.match(d.stderr(), 'recovered: site seq 4 (3 line(s) replayed), 2 type(s) current');
  assert.is((await request(d.url, '/current?freshness=false')).text, before.text);
  assert.is((await postEvent(d.url, { type: 'power', data: 'ups' })).json.seq, 5);
}));

test('a held seq whose line never got written does not hide the event that later takes that seq', () => withRestarts(async (site) => {
  let d = await site.start();
  await postEvent(d.url, { type: 'weather', data: 1 });
  await site.stop(); // the snapshot is up to date: the next start replays nothing
  // what a crash between the held-list write and the line write leaves behind
  fs.writeFileSync(path.join(site.dir, '.meridian', 'held-site.ndjson'), '2\n');
  d = await site.start();
  const second = await postEvent(d.url, { type: 'weather', data: 2 });
  assert.is(second.json.seq, 2);
  await site.kill9();
  d = await site.start();
  assert.equal((await request(d.url, '/current/weather')).json, second.json);
}));

test('a torn final line is cut at start-up and logged with file and byte offset', () => withRestarts(async (site) => {
  let d = await site.start();
  await postEvent(d.url, { type: 'weather', data: 1 });
  await postEvent(d.url, { type: 'weather', data: 2 });
  await site.kill9();
  const [file] = siteFiles(site.dir);
  const whole = fs.readFileSync(file!, 'utf8');
  fs.appendFileSync(file!, '{"seq":3,"ts":"2026-');

  d = await site.start();
  assert.is(fs.readFileSync(file!, 'utf8'), whole);
  assert.match(d.stderr(), `${file}: cut a torn final line of 20 bytes at byte ${Buffer.byteLength(whole)}`);
  assert.is((await postEvent(d.url, { type: 'weather', data: 3 })).json.seq, 3);
}));

test('a corrupt snapshot falls back to replaying the files, with a warning', () => withRestarts(async (site) => {
  let d = await site.start();
  await postEvent(d.url, { type: 'weather', data: 1 });
  await postEvent(d.url, { type: 'dome', data: 'shut' });
  const before = await request(d.url, '/current?freshness=false');
  await site.stop();
  fs.writeFileSync(path.join(site.dir, '.meridian', 'snapshot.json'), '{"format":1,"site":');

  d = await site.start();
  assert.match(d.stderr(), 'snapshot.json is not valid JSON');
  assert.match(d.stderr(), 'replaying the files instead');
  assert.is((await request(d.url, '/current?freshness=false')).text, before.text);
  assert.is((await postEvent(d.url, { type: 'dome', data: 'open' })).json.seq, 3);
}));

test('a snapshot of format 1 (an earlier version) is read, and replaced by format 2', () => withRestarts(async (site) => {
  const lines = [
    '{"seq":1,"ts":"2026-03-17T20:00:00.000Z","type":"weather","data":{"t":1},"meta":{}}',
    '{"seq":2,"ts":"2026-03-17T20:00:01.000Z","type":"dome","data":"open","meta":{}}',
    '{"seq":3,"ts":"2026-03-17T20:00:02.000Z","type":"weather","data":{"t":3},"meta":{}}',
  ];
  const siteFile = path.join(site.dir, 'site_20260317.ndjson');
  fs.writeFileSync(siteFile, `${lines.join('\n')}\n`);
  fs.mkdirSync(path.join(site.dir, '.meridian'));
  // format 1 marked the first two lines and held the views as envelope objects
  const offset = Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`);
  fs.writeFileSync(path.join(site.dir, '.meridian', 'snapshot.json'), JSON.stringify({
    format: 1, written_at: '2026-03-17T20:00:01.500Z',
    site: { file: siteFile, offset, seq: 2, current: [JSON.parse(lines[0]!), JSON.parse(lines[1]!)] }, run: null,
  }));
  const d = await site.start();
  assert.match(d.stderr(), 'recovered: site seq 3 (1 line(s) replayed), 2 type(s) current');
  assert.is((await request(d.url, '/current?freshness=false')).text, `{"current":{"dome":${lines[1]},"weather":${lines[2]}}}`);
  const snap = JSON.parse(fs.readFileSync(path.join(site.dir, '.meridian', 'snapshot.json'), 'utf8'));
  assert.equal({ format: snap.format, site: snap.site, run: snap.run, current: snap.current },
    { format: 3, site: { file: path.basename(siteFile), offset: Buffer.byteLength(`${lines.join('\n')}\n`), seq: 3 }, run: null, current: [JSON.parse(lines[2]!), JSON.parse(lines[1]!)] });
  assert.is((await postEvent(d.url, { type: 'dome', data: 'shut' })).json.seq, 4);
}));

test('a reused run directory continues its seq', () => withRestarts(async (site) => {
  const d = await site.start();
  await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'night' } });
  await postEvent(d.url, { type: 'a', data: 1 });
  await postEvent(d.url, { type: 'a', data: 2 });
  await request(d.url, '/run/stop', { method: 'POST' });
  await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'night' } });
  assert.equal((await request(d.url, '/current?freshness=false')).json.current.a.data, 2, 'a restarted run leaves the view as it was');
  assert.is((await postEvent(d.url, { type: 'a', data: 3 })).json.seq, 3);
  assert.equal((readLines(path.join(site.dir, 'night', 'telemetry.ndjson')) as Env[]).map((e) => e.seq), [1, 2, 3]);
}));

test.run();
