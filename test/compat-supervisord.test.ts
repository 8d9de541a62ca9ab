import { spawn } from 'node:child_process';
import dns from 'node:dns/promises';
import os from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient } from '../client/client.js';
import { VERSION } from '../lib/version.js';
import { cleanEnv, freePort, MERIDIAN_BIN } from './helpers/daemon.js';
import { request, type RawAnswer } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A drop-in on a real unit (issue 22): the daemon started with exactly the replacement of
// POCS's supervisord line that docs/operations.md gives
//   meridian telemetry run --host 0.0.0.0 --port 6562 --site-dir /home/panoptes/telemetry --allow-unauthenticated
// (a free port and a temporary site directory swapped in), driven through a whole POCS night
// by clients that name the machine as POCS's are configured to: by its host name
// (os.hostname()) and by the address that name resolves to (127.0.1.1 on Debian).

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The supervisord command, as argv after `meridian`. */
function supervisordLine(port: number, siteDir: string): string[] {
  return ['telemetry', 'run', '--host', '0.0.0.0', '--port', String(port), '--site-dir', siteDir, '--allow-unauthenticated'];
}

/** Start it as supervisord would; resolves once it logs that it listens. */
async function startAsSupervisord(port: number, siteDir: string) {
  const child = spawn(process.execPath, [MERIDIAN_BIN, ...supervisordLine(port, siteDir)], { env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/listening on/.test(stderr)) resolve();
    });
    void exited.then((code) => reject(new Error(`exited (${code}) before listening:\n${stderr}`)));
  });
  return { child, exited, stderr: () => stderr };
}

/** A POST as the panoptes-utils 0.5.3 client sends it (json.dumps spacing). */
function post(url: string, path: string, body: string): Promise<RawAnswer> {
  return request(url, path, { method: 'POST', body, headers: JSON_HEADERS });
}

const reading = (type: string, data: string, permanent = true) =>
  `{"type": "${type}", "data": ${data}, "make_current": true, "meta": {}, "store_permanently": ${permanent}}`;

test('POCS\'s supervisord line, with clients naming the host: a whole night, the original\'s answers', async () => {
  const siteDir = tempDir();
  const port = await freePort();
  const hostname = os.hostname();
  const [{ address }] = [await dns.lookup(hostname, { family: 4 })];
  const byName = `http://${hostname}:${port}`;
  const byAddress = `http://${address}:${port}`;
  const daemon = await startAsSupervisord(port, siteDir);
  try {
    assert.match(daemon.stderr(), 'WARN UNAUTHENTICATED: bound to 0.0.0.0 without a token (--allow-unauthenticated)');
    for (const url of [byName, byAddress]) {
      const ready = await request(url, '/ready');
      assert.is(ready.text, `{"ready":true,"run_active":false,"version":"${VERSION}"}`, url);
    }
    // the evening: site readings, one ephemeral
    const weather = await post(byName, '/event', reading('weather', '{"safe": true, "temp_c": -3.0}', false));
    const power = await post(byAddress, '/event', reading('power', '{"mains": true}'));
    assert.equal([weather.status, power.status], [200, 200]);
    // the night: POCS starts a run, records, reads the view, stops the run
    const start = await post(byName, '/run/start', '{"run_dir": "runs/PAN001_14d3bd_20260317T200000", "run_id": null, "meta": {}}');
    assert.is(start.status, 200, start.text);
    assert.equal(start.json, { run_dir: `${siteDir}/runs/PAN001_14d3bd_20260317T200000`, run_id: '001', meta: { run_id: '001' }, started_at: start.json.started_at });
    const mount = await post(byAddress, '/event', reading('mount', '{"ra": 10.0, "dec": -20.5}'));
    const camera = await post(byName, '/event', reading('camera', '{"exptime": 120.0}'));
    assert.equal(mount.json.meta, { run_id: '001' });
    assert.equal((await request(byName, '/run')).json, start.json);
    const current = await request(byName, '/current');
    assert.is(current.text, `{"current":{"camera":${camera.text},"mount":${mount.text},"power":${power.text},"weather":${weather.text}}}`);
    assert.is((await request(byAddress, '/current/mount')).text, mount.text);
    const stop = await post(byAddress, '/run/stop', '');
    assert.is(stop.status, 200, stop.text);
    assert.is((await request(byName, '/run')).status, 404);
    assert.is((await request(byName, '/ready')).json.run_active, false);
    // Meridian's own client, given the host name, asks for freshness
    const client = new TelemetryClient({ host: hostname, port, env: {} });
    try {
      const view = await client.current();
      assert.equal(Object.keys(view.current), ['camera', 'mount', 'power', 'weather']);
      assert.equal(Object.keys(view.freshness ?? {}), ['camera', 'mount', 'power', 'weather']);
    } finally {
      client.close();
    }
    // and a page that names another host is still refused
    const rebinding = await request(byName, '/current', { headers: { host: `evil.example:${port}` } });
    assert.equal([rebinding.status, rebinding.json.code], [403, 'FORBIDDEN']);
    // supervisord stops it with SIGTERM: a clean exit
    daemon.child.kill('SIGTERM');
    assert.is(await daemon.exited, 0);
  } finally {
    daemon.child.kill('SIGKILL');
    removeDir(siteDir);
  }
});

test.run();
