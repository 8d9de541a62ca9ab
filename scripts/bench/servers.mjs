import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_NODE_FLAGS } from '../../dist/launcher/node-flags.js';

// Starting the servers under test as child processes (pinned to the server CPU), waiting
// for them, reading their memory, stopping them.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MERIDIAN = path.join(ROOT, 'dist', 'cli', 'meridian.js');
const BASELINE = path.join(ROOT, 'scripts', 'bench', 'baseline-server.mjs');

/** A port that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * `--rollups off`, for the phases that start a daemon on files written by the bench: a first
 * start on recorded files builds the rollups in the background (docs/rollups.md), which would
 * share the CPU with what those phases measure (history, start-up).
 */
export const NO_ROLLUPS = ['--rollups', 'off'];

/** Start the real daemon (`meridian telemetry run`, with the Node flags every launch path uses); resolves once /ready answers. */
export async function startDaemon({ siteDir, fsync = 'batch', pin = [], nodeArgs = DAEMON_NODE_FLAGS, args: extra = [], readyTimeoutMs = 120_000 }) {
  // the port is free when picked, but another process (a test beside the bench's smoke run)
  // may take it before the daemon binds it: the daemon then exits, and it is started again
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = [MERIDIAN, 'telemetry', 'run', '--host', '127.0.0.1', '--port', String(port), '--site-dir', siteDir, '--fsync', fsync, ...extra];
    try {
      // ready once this daemon says it listens on the port (not whoever else answers /ready there)
      return await launch([...pin, process.execPath, ...nodeArgs, ...args], port, `daemon (--fsync ${fsync})`, readyTimeoutMs,
        `listening on http://127.0.0.1:${port} `);
    } catch (error) {
      if (attempt >= 3 || !/port is already in use/.test(error.message)) throw error;
    }
  }
}

/** Start the bare Node baseline server; resolves once it answers. */
export async function startBaseline({ pin = [], batchFile }) {
  const port = await freePort();
  return launch([...pin, process.execPath, BASELINE, String(port), ...(batchFile ? [batchFile] : [])], port, 'baseline');
}

async function launch(argv, port, name, readyTimeoutMs = 120_000, readyLine = undefined) {
  const started = process.hrtime.bigint();
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], env: cleanEnv() });
  let stderr = '';
  child.stderr.on('data', (c) => { stderr += c; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited before it was ready:\n${stderr}`);
    if ((readyLine === undefined || stderr.includes(readyLine)) && await answers(`${url}/ready`)) break;
    if (Date.now() > deadline) throw new Error(`${name} not ready after ${readyTimeoutMs / 1000} s:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    name, url, port, pid: child.pid, readyMs, stderr: () => stderr,
    /** Peak and current resident memory in MiB, from /proc (undefined off Linux). */
    memory: () => procMemory(child.pid),
    /** SIGTERM, then wait for the exit. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

function answers(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.setTimeout(1000, () => { req.destroy(); resolve(false); });
  });
}

/** Peak and current resident memory of process `pid` in MiB, from /proc (undefined off Linux or once it is gone). */
export function procMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
    return { peakMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MERIDIAN_')) env[k] = v;
  return env;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** One request over a keep-alive agent; resolves {status, body, headers}. */
export function request(url, { method = 'GET', body, headers = {}, fresh = false } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent: fresh ? false : agent, headers: body ? { 'content-type': 'application/json', ...headers } : headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (error) => {
      // a kept-alive socket the server closed as this request went out on it (Node 22 meets this
      // more often): nothing was answered, the request is sent again on a connection of its own
      if (!fresh && req.reusedSocket && error.code === 'ECONNRESET') resolve(request(url, { method, body, headers, fresh: true }));
      else reject(error);
    });
    req.end(body);
  });
}

/** Post `count` events from `bodyOf(i)` with `parallel` requests in flight; resolves the 2xx count. */
export async function postMany(url, count, bodyOf, parallel = 16) {
  let next = 0;
  let ok = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const res = await request(`${url}/event`, { method: 'POST', body: bodyOf(i) });
      if (res.status === 200) ok++;
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return ok;
}
