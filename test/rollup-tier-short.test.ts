import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A tier file shorter than its checkpoint says (cut or removed beneath the daemon) is never
// answered silently short: at start-up, and while the daemon runs, the log names it and the
// rollups are rebuilt from the recorded files, so every reading is answered again. While the
// daemon runs, the first query of the short file notices it (before any write into it) and
// answers once the rebuild is in place.

const T0 = Date.parse('2026-11-20T12:00:30Z');
const QUERY = '/history?type=weather&step=1m&from=2026-11-20T00:00:00Z&to=2026-11-22T00:00:00Z';
const NDJSON = { 'content-type': 'application/x-ndjson' };

function lines(from: number, n: number): string {
  return Array.from({ length: n }, (_, i) => JSON.stringify({ type: 'weather', ts: new Date(T0 + (from + i) * 60_000).toISOString(), data: { temp: from + i + 0.5 } })).join('\n');
}

/** The 1m answer's [buckets with data.temp, readings]. */
async function counted(d: ChildDaemon): Promise<[number, number]> {
  const answer = await request(d.url, QUERY);
  const counts = (answer.json as { buckets: { fields: Record<string, { count: number } | null> }[] }).buckets
    .flatMap((x) => (x.fields['data.temp'] ? [x.fields['data.temp'].count] : []));
  return [counts.length, counts.reduce((a, n) => a + n, 0)];
}

async function stop(d: ChildDaemon): Promise<void> {
  d.child.kill('SIGTERM');
  assert.is(await d.exited, 0, d.stderr());
}

/** A daemon on `site`, stopped by `finish` if a test fails while it runs. */
async function start(site: string, running: ChildDaemon[]): Promise<ChildDaemon> {
  const d = await spawnDaemon({ siteDir: site, env: { TZ: 'UTC' } });
  running.push(d);
  return d;
}

async function finish(site: string, running: ChildDaemon[]): Promise<void> {
  for (const d of running) {
    if (d.child.exitCode === null && d.child.signalCode === null) {
      d.child.kill('SIGKILL');
      await d.exited.catch(() => undefined);
    }
  }
  removeDir(site);
}

type RollupStatus = { state: string; since: string | null; reason: string | null; last_rebuild: { at: string; reason: string } | null };

/** GET /status's rollups, the time of the last rebuild checked as a ts and written AT. */
async function rollupStatus(d: ChildDaemon): Promise<RollupStatus> {
  const status = (await request(d.url, '/status')).json as { rollups: RollupStatus };
  const last = status.rollups.last_rebuild;
  if (last) assert.match(last.at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  return { ...status.rollups, last_rebuild: last && { ...last, at: 'AT' } };
}

const built = (d: ChildDaemon) => () => (/rollups built from the recorded files in/.test(d.stderr()) ? true : undefined);

test('a tier file cut while the daemon was stopped: named in the log at start, rebuilt, every reading answered', async () => {
  const site = tempDir();
  const running: ChildDaemon[] = [];
  try {
    let d = await start(site, running);
    assert.equal(await rollupStatus(d), { state: 'ok', since: null, reason: null, last_rebuild: null });
    assert.is((await request(d.url, '/events', { body: lines(0, 300), headers: NDJSON })).status, 200);
    await stop(d);
    const file = path.join(site, '.meridian', 'rollups', '1m', 'weather.ndjson');
    const size = fs.statSync(file).size;
    fs.truncateSync(file, 5000);
    d = await start(site, running);
    await waitFor('the build to end', built(d));
    assert.match(d.stderr(), `WARN the rollup checkpoint cannot be resumed (the rollup tier file ${path.join('1m', 'weather.ndjson')} is 5000 bytes, ` +
      `shorter than the ${size} bytes written to it); rebuilding the rollups from the recorded files`);
    assert.equal(await counted(d), [300, 300]);
    // /status says the rebuild happened, and why
    assert.equal(await rollupStatus(d), { state: 'ok', since: null, reason: null, last_rebuild: { at: 'AT',
      reason: `the rollup checkpoint cannot be resumed (the rollup tier file ${path.join('1m', 'weather.ndjson')} is 5000 bytes, shorter than the ${size} bytes written to it)` } });
    await stop(d);
  } finally {
    await finish(site, running);
  }
});

test('a tier file cut while the daemon runs: named in the log at the next flush, rebuilt; a clean stop never records the short length', async () => {
  const site = tempDir();
  const running: ChildDaemon[] = [];
  try {
    let d = await start(site, running);
    assert.is((await request(d.url, '/events', { body: lines(0, 300), headers: NDJSON })).status, 200);
    const file = path.join(site, '.meridian', 'rollups', '1m', 'weather.ndjson');
    const checkpoint = path.join(site, '.meridian', 'rollups', 'checkpoint.json');
    const key = path.join('1m', 'weather.ndjson');
    const size = await waitFor('the tier written', () => {
      const named = fs.existsSync(checkpoint) ? (JSON.parse(fs.readFileSync(checkpoint, 'utf8')) as { files: Record<string, number> }).files[key] : undefined;
      return named !== undefined && named === fs.statSync(file).size && named > 5000 ? named : undefined;
    });
    fs.truncateSync(file, 5000);
    assert.is((await request(d.url, '/events', { body: lines(300, 2), headers: NDJSON })).status, 200);
    await waitFor('the short file named', () => (d.stderr().includes(`WARN the rollup tier file ${key} is 5000 bytes, shorter than the ${size} bytes written to it; ` +
      'rebuilding the rollups from the recorded files') ? true : undefined));
    // /status: rebuilding with the short file as its cause, then ok with it as the last rebuild's
    const rebuilt = await waitFor('the rebuild to end', async () => {
      const now = await rollupStatus(d);
      if (now.state === 'rebuilding') assert.equal(now.reason, `the rollup tier file ${key} is 5000 bytes, shorter than the ${size} bytes written to it`);
      return now.state === 'ok' ? now : undefined;
    });
    assert.equal(rebuilt, { state: 'ok', since: null, reason: null, last_rebuild: { at: 'AT', reason: `the rollup tier file ${key} is 5000 bytes, shorter than the ${size} bytes written to it` } });
    assert.is((await request(d.url, '/rollups/rebuild', { method: 'POST' })).status, 200);
    assert.equal((await rollupStatus(d)).last_rebuild, { at: 'AT', reason: 'asked for (POST /rollups/rebuild)' });
    assert.equal(await counted(d), [302, 302]);
    await stop(d);

    // cut again, then stopped at once: the checkpoint keeps the length written, the next start rebuilds
    d = await start(site, running);
    const whole = fs.statSync(file).size;
    fs.truncateSync(file, 5000);
    assert.is((await request(d.url, '/events', { body: lines(302, 2), headers: NDJSON })).status, 200);
    await stop(d);
    assert.is((JSON.parse(fs.readFileSync(checkpoint, 'utf8')) as { files: Record<string, number> }).files[key], whole);
    d = await start(site, running);
    await waitFor('the build to end', built(d));
    assert.equal(await counted(d), [304, 304]);
    await stop(d);
  } finally {
    await finish(site, running);
  }
});

test('a tier file cut while the daemon runs and nothing written since: the next query notices it, waits for the rebuild, answers whole', async () => {
  const site = tempDir();
  const running: ChildDaemon[] = [];
  try {
    const d = await start(site, running);
    assert.is((await request(d.url, '/events', { body: lines(0, 300), headers: NDJSON })).status, 200);
    const file = path.join(site, '.meridian', 'rollups', '1m', 'weather.ndjson');
    const checkpoint = path.join(site, '.meridian', 'rollups', 'checkpoint.json');
    const key = path.join('1m', 'weather.ndjson');
    const size = await waitFor('the tier written', () => {
      const named = fs.existsSync(checkpoint) ? (JSON.parse(fs.readFileSync(checkpoint, 'utf8')) as { files: Record<string, number> }).files[key] : undefined;
      return named !== undefined && named === fs.statSync(file).size && named > 5000 ? named : undefined;
    });
    assert.equal(await counted(d), [300, 300]);
    const why = `the rollup tier file ${key} is 5000 bytes, shorter than the ${size} bytes written to it`;
    for (const [name, cut] of [['cut', () => fs.truncateSync(file, 5000)], ['removed', () => fs.rmSync(file)]] as const) {
      cut();
      assert.equal(await counted(d), [300, 300], name);
      assert.equal(await rollupStatus(d), { state: 'ok', since: null, reason: null, last_rebuild: { at: 'AT', reason: name === 'cut' ? why : why.replace('5000 bytes', '0 bytes') } }, name);
    }
    assert.ok(d.stderr().includes(`WARN ${why}; rebuilding the rollups from the recorded files\n`), d.stderr());
    await stop(d);
  } finally {
    await finish(site, running);
  }
});

test.run();
