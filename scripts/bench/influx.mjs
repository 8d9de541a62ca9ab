import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from './servers.mjs';

// InfluxDB 1.6 (influxd, Debian's `influxdb` package) for the batch-ingest comparison:
// started on loopback ports in a temp directory, its WAL synced on every write (its
// default, wal-fsync-delay 0), a database `bench` created. Undefined when not installed.

/** Whether influxd is installed. */
export function hasInflux() {
  try {
    execFileSync('influxd', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Start influxd under `dir`; resolves {url, stop()} once it answers /ping and the database exists. */
export async function startInflux(dir, { pin = [] } = {}) {
  const [port, rpc] = [await freePort(), await freePort()];
  fs.mkdirSync(dir, { recursive: true });
  const conf = path.join(dir, 'influxdb.conf');
  fs.writeFileSync(conf, [
    'reporting-disabled = true', `bind-address = "127.0.0.1:${rpc}"`,
    '[meta]', `  dir = "${dir}/meta"`,
    '[data]', `  dir = "${dir}/data"`, `  wal-dir = "${dir}/wal"`, '  wal-fsync-delay = "0s"', '  query-log-enabled = false',
    '[http]', `  bind-address = "127.0.0.1:${port}"`, '  log-enabled = false',
    '[monitor]', '  store-enabled = false',
  ].join('\n'));
  const argv = [...pin, 'influxd', '-config', conf];
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => { stderr += c; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while ((await call(`${url}/ping`, 'GET')) !== 204) {
    if (child.exitCode !== null) throw new Error(`influxd exited:\n${stderr.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`influxd not ready in 60 s:\n${stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const created = await call(`${url}/query?q=${encodeURIComponent('CREATE DATABASE bench')}`, 'POST');
  if (created !== 200) throw new Error(`CREATE DATABASE answered ${created}`);
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Count the points of measurement `weather` (to check what was acknowledged was stored). */
export async function countPoints(url) {
  const body = await get(`${url}/query?db=bench&q=${encodeURIComponent('SELECT count(temperature_c) FROM weather')}`);
  return JSON.parse(body).results?.[0]?.series?.[0]?.values?.[0]?.[1] ?? 0;
}

function call(url, method) {
  return new Promise((resolve) => {
    const req = http.request(url, { method, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    req.on('error', () => resolve(0));
    req.end();
  });
}

function get(url) {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    }).on('error', reject);
  });
}
