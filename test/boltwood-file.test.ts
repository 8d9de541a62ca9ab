import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeFs, type StorageFs } from '../daemon/storage/storage-fs.js';
import { parseBoltwood } from './helpers/boltwood.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The Boltwood file written by the real daemon (manual clock, site zone Europe/Berlin): the
// exact line as inputs arrive, age and go stale; Since the age of the oldest contributing
// reading; the alert and roof-close flags on an unsafe verdict and on a stale input; a file
// that cannot be written (a directory in its place, a missing directory, a full disk) shown in
// /status, logged once per change, the old file left whole.

const T0 = '2026-11-25T01:00:00.000Z';
const config = (file: string) => `
[safety]
required = ["weather"]
[conditions]
temperature = { type = "weather", field = "data.t" }
skytemperature = { type = "weather", field = "data.sky" }
humidity = { type = "weather", field = "data.rh" }
windspeed = { type = "weather", field = "data.wind", unit = "km/h" }
rainrate = { type = "rain", field = "data.mm" }
[boltwood]
path = ${JSON.stringify(file)}
every_s = 0.5
`;

async function withBoltwood(fn: (d: TestDaemon, clock: ManualClock, file: string) => Promise<void>, opts: { file?: (dir: string) => string; fs?: StorageFs } = {}): Promise<void> {
  const dir = tempDir();
  const file = opts.file ? opts.file(dir) : path.join(dir, 'clarity.txt');
  const clock = new ManualClock(T0);
  try {
    await withTestDaemon({ clock, env: { TZ: 'Europe/Berlin' }, config: config(file), flags: { maxAge: 'weather=60,rain=30' }, fs: opts.fs,
      freshnessIntervalMs: 0, safetyIntervalMs: 0 }, (d) => fn(d, clock, file));
  } finally {
    removeDir(dir);
  }
}

async function post(d: TestDaemon, type: string, data: string): Promise<void> {
  const answer = await request(d.url, '/event', { method: 'POST', body: `{"type":"${type}","data":${data}}`, headers: { 'content-type': 'application/json' } });
  assert.is(answer.status, 200, answer.text);
}

/** Wait until the file holds `want` (the writer runs every 0.5 s), within 5 s. */
async function fileReads(file: string, want: string): Promise<void> {
  const deadline = Date.now() + 5000;
  let last = '';
  while (Date.now() < deadline) {
    try { last = fs.readFileSync(file, 'latin1'); } catch { last = '(no file)'; }
    if (last === want) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.is(last, want);
}

/** Wait until GET /status shows the Boltwood writer so. */
async function statusShows(d: TestDaemon, want: (b: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 5000;
  let last: Record<string, unknown> = {};
  while (Date.now() < deadline) {
    last = (await request(d.url, '/status')).json.outputs.boltwood;
    if (want(last)) return last;
  }
  throw new Error(`/status outputs.boltwood: ${JSON.stringify(last)}`);
}

test('the line as inputs arrive, age and go stale: Since, the flags, local time and VB Now()', () => withBoltwood(async (d, clock, file) => {
  // nothing yet: unsafe, every contributing value unknown, Since at its most
  await fileReads(file, '2026-11-25 02:00:00.00 C K  999.0    0.0    0.0   -3.0   0    0.0   0 0 0 99999 046351.08333 0 0 0 0 1 1\r\n');
  await post(d, 'weather', '{"t":10,"sky":-20,"rh":60,"wind":36}');
  await post(d, 'rain', '{"mm":0}');
  clock.advance(2400);
  const safe = '2026-11-25 02:00:02.40 C K  -30.0   10.0   10.0   36.0  60    2.6   0 0 0 00002 046351.08336 1 3 1 0 0 0\r\n';
  await fileReads(file, safe);
  assert.equal(parseBoltwood(safe), {
    date: '2026-11-25', time: '02:00:02.40', T: 'C', V: 'K', SkyT: '-30.0', AmbT: '10.0', SenT: '10.0', Wind: '36.0', Hum: '60', DewPt: '2.6',
    Hea: '0', R: '0', W: '0', Since: '00002', Now: '046351.08336', c: '1', w: '3', r: '1', d: '0', C: '0', A: '0',
  });
  await post(d, 'rain', '{"mm":1.5}');
  clock.advance(1000);
  await fileReads(file, '2026-11-25 02:00:03.40 C K  -30.0   10.0   10.0   36.0  60    2.6   0 2 2 00003 046351.08337 1 3 3 0 0 0\r\n');
  // the rain gauge stops: its reading goes stale past 30 s (the verdict does not read it, and stays safe)
  clock.advance(31_100);
  await fileReads(file, '2026-11-25 02:00:34.50 C K  -30.0   10.0   10.0   36.0  60    2.6   0 2 2 00035 046351.08373 1 3 3 0 1 1\r\n');
  assert.equal(await statusShows(d, (b) => b.since === 35), { path: file, every_s: 0.5, last_written: '2026-11-25T01:00:34.500Z', since: 35, alert: true, error: null });
  await post(d, 'rain', '{"mm":0}');
  await fileReads(file, '2026-11-25 02:00:34.50 C K  -30.0   10.0   10.0   36.0  60    2.6   0 0 0 00035 046351.08373 1 3 1 0 0 0\r\n');
  // the required weather goes stale: the verdict is unsafe
  clock.advance(26_000);
  await fileReads(file, '2026-11-25 02:01:00.50 C K  -30.0   10.0   10.0   36.0  60    2.6   0 0 0 00061 046351.08403 1 3 1 0 1 1\r\n');
}));

test('a directory in the file\'s place: /status and one log line, then written once it is gone', () => withBoltwood(async (d, _clock, file) => {
  const reason = `cannot write the Boltwood file ${file} (EISDIR); no file is there (something else is in its place)`;
  const shown = await statusShows(d, (b) => b.error !== null);
  assert.equal(shown, { path: file, every_s: 0.5, last_written: null, since: null, alert: null, error: reason });
  await new Promise((resolve) => setTimeout(resolve, 1200)); // a few more failed rewrites: still one line
  const logged = d.logs.filter((l) => l.includes('Boltwood'));
  assert.is(logged.length, 1, logged.join('\n'));
  assert.match(logged[0]!, new RegExp(`WARN.* ${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  fs.rmdirSync(file);
  await statusShows(d, (b) => b.error === null);
  assert.is(d.logs.filter((l) => l.includes('Boltwood')).length, 2);
  assert.ok(d.logs.some((l) => l.endsWith(`the Boltwood file ${file} is written again`)));
  assert.ok(parseBoltwood(fs.readFileSync(file, 'latin1')));
}, { file: (dir) => { const f = path.join(dir, 'clarity.txt'); fs.mkdirSync(f); return f; } }));

test('a missing directory: ENOENT in /status', () => withBoltwood(async (d, _clock, file) => {
  const shown = await statusShows(d, (b) => b.error !== null);
  assert.is(shown.error, `cannot write the Boltwood file ${file} (ENOENT); no file is there yet`);
}, { file: (dir) => path.join(dir, 'missing', 'clarity.txt') }));

test('a full disk: the old file stays whole, the error shown, writing resumes', async () => {
  const full = { on: false };
  const failing: StorageFs = { ...nodeFs, writeSync: ((fd: number, ...rest: unknown[]) => {
    if (full.on && (fs.readlinkSync(`/proc/self/fd/${fd}`).includes('clarity.txt.tmp-'))) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    return (nodeFs.writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as StorageFs['writeSync'] };
  await withBoltwood(async (d, clock, file) => {
    const before = '2026-11-25 02:00:00.00 C K  999.0    0.0    0.0   -3.0   0    0.0   0 0 0 99999 046351.08333 0 0 0 0 1 1\r\n';
    await fileReads(file, before);
    full.on = true;
    clock.advance(1000);
    const shown = await statusShows(d, (b) => b.error !== null);
    assert.is(shown.error, `cannot write the Boltwood file ${file} (ENOSPC); the previous one is left as it was`);
    assert.is(fs.readFileSync(file, 'latin1'), before);
    assert.equal(fs.readdirSync(path.dirname(file)), ['clarity.txt'], 'no temporary file is left behind');
    full.on = false;
    await fileReads(file, before.replace('02:00:00.00', '02:00:01.00').replace('046351.08333', '046351.08334'));
  }, { fs: failing });
});

test.run();
