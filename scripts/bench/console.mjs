// The live console at scale (issue 14): a daemon holding N types (100,000 by default, its
// site file written directly), the real console (`telemetry current --follow`, with the Node
// flags of its own #! line, as an operator runs it) in a tmux pane of 80x24, one type posted
// 5 times a second; on the stream, then polling (a proxy that answers /stream 404, like a
// daemon from before the stream). The console's resident memory is sampled from its start,
// its peak (VmHWM) read, then End (how long until the last row shows) and q (how long until
// the process has exited). Targets: under ~200 MiB, quitting at once.
// Run alone: node scripts/bench/console.mjs [N] [seconds].
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { procMemory, request, startDaemon } from './servers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TELEMETRY = path.join(ROOT, 'dist', 'cli', 'telemetry.js');

/** Measure the console against `types` types for `seconds` seconds, on the stream and polling; the figures of each. */
export async function consoleRun({ tmp, types = 100_000, seconds = 20, log = () => undefined }) {
  if (spawnSync('tmux', ['-V']).status !== 0) return { skipped: 'tmux is not installed' };
  const siteDir = path.join(tmp, 'site-console');
  writeView(siteDir, types);
  const daemon = await startDaemon({ siteDir });
  try {
    const stream = await measure({ port: daemon.port, url: daemon.url, types, seconds, log: (l) => log(`  console (stream): ${l}`) });
    const proxy = await withoutStream(daemon.port);
    try {
      const polling = await measure({ port: proxy.address().port, url: daemon.url, types, seconds, log: (l) => log(`  console (polling): ${l}`) });
      return { types, seconds, stream, polling };
    } finally {
      proxy.close();
    }
  } finally {
    await daemon.stop();
  }
}

/** One console in tmux against `port` while `url` gets a reading of one type 5 times a second. */
async function measure({ port, url, types, seconds, log }) {
  const socket = `meridian-bench-${process.pid}`;
  const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  try {
    const node = [process.execPath, ...shebangFlags(TELEMETRY), TELEMETRY].join(' ');
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'c', '-x', '80', '-y', '24', 'sh', '-c',
      `TERM=xterm-256color LANG=C.UTF-8 exec ${node} current --follow --host 127.0.0.1 --port ${port}`);
    const screen = () => tmux('capture-pane', '-p', '-t', 'c');
    const pid = Number(tmux('display-message', '-p', '-t', 'c', '#{pane_pid}').trim());
    const samples = [];
    const sampler = setInterval(() => samples.push(procMemory(pid)?.rssMiB), 100);
    const started = Date.now();
    await until(() => screen().includes(`1/${types} `), 120_000);
    const firstScreenMs = Date.now() - started;
    log(`${types} types on screen after ${firstScreenMs} ms`);
    let posted = 0;
    const end = Date.now() + seconds * 1000;
    while (Date.now() < end) {
      // a connection of its own each time: while the console's polls of 100,000 types keep the
      // daemon busy for seconds, a kept-alive socket can pass its keep-alive timeout meanwhile
      // and be closed just as the next post goes out on it (a hang-up, not an answer)
      await request(`${url}/event`, { method: 'POST', fresh: true, body: JSON.stringify({ type: 'sensor-000005', data: { v: posted++ } }) });
      await new Promise((r) => setTimeout(r, 200));
    }
    clearInterval(sampler);
    const t0 = Date.now();
    tmux('send-keys', '-t', 'c', 'End');
    await until(() => screen().includes(`${types}/${types} `), 60_000);
    const endKeyMs = Date.now() - t0;
    const mem = procMemory(pid);
    const t1 = Date.now();
    tmux('send-keys', '-t', 'c', 'q');
    await until(() => !running(pid), 60_000);
    const quitMs = Date.now() - t1;
    const rss = samples.filter((x) => x !== undefined);
    log(`peak ${mem?.peakMiB.toFixed(0)} MiB, q quits in ${quitMs} ms`);
    return { posted, firstScreenMs, endKeyMs, quitMs, peakMiB: mem?.peakMiB, rssMiB: { min: Math.min(...rss), max: Math.max(...rss) } };
  } finally {
    try { tmux('kill-server'); } catch { /* gone */ }
  }
}

/** The Node flags of an executable's `#!/usr/bin/env -S node ...` line. */
function shebangFlags(file) {
  const first = fs.readFileSync(file, 'utf8').split('\n', 1)[0];
  return first.startsWith('#!') ? first.split(/\s+/).filter((w) => w.startsWith('--')) : [];
}

/** A proxy to the daemon that answers /stream 404, as a daemon from before the stream did: the console polls. */
function withoutStream(daemonPort) {
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/stream')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'no such path', code: 'NOT_FOUND' }));
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: daemonPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A site day file with one reading of each of `types` types (the daemon replays it at start). */
function writeView(siteDir, types) {
  fs.mkdirSync(siteDir, { recursive: true });
  const ts = new Date().toISOString();
  const day = new Date(Date.now() - 12 * 3600_000).toISOString().slice(0, 10).replaceAll('-', '');
  const lines = [];
  for (let i = 1; i <= types; i++) {
    lines.push(JSON.stringify({ seq: i, ts, type: `sensor-${String(i).padStart(6, '0')}`, data: { v: i, temp_c: -3.5, ok: true }, meta: {} }));
  }
  fs.writeFileSync(path.join(siteDir, `site_${day}.ndjson`), `${lines.join('\n')}\n`);
}

/** The process still runs (an exited one waiting for tmux to reap it is a zombie: it has exited). */
function running(pid) {
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(ok, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('the console did not get there in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tmp = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'meridian-bench-console-'));
  try {
    const figures = await consoleRun({ tmp, types: Number(process.argv[2] ?? 100_000), seconds: Number(process.argv[3] ?? 20), log: (l) => process.stderr.write(`${l}\n`) });
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
