// The live console at scale (issue 14): a daemon holding N types (100,000 by default, its
// site file written directly), the real console (`telemetry current --follow`) in a tmux
// pane of 80x24, one type posted 5 times a second; the console's resident memory is sampled,
// then End (how long until the last row shows) and q (how long until the process is gone).
// Targets: under ~200 MiB, quitting at once. Run alone: node scripts/bench/console.mjs [N].
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { procMemory, request, startDaemon } from './servers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TELEMETRY = path.join(ROOT, 'dist', 'cli', 'telemetry.js');

/** Measure the console against `types` types for `seconds` seconds; the figures. */
export async function consoleRun({ tmp, types = 100_000, seconds = 20, log = () => undefined }) {
  if (spawnSync('tmux', ['-V']).status !== 0) return { skipped: 'tmux is not installed' };
  const siteDir = path.join(tmp, 'site-console');
  writeView(siteDir, types);
  const daemon = await startDaemon({ siteDir });
  const socket = `meridian-bench-${process.pid}`;
  const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  try {
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'c', '-x', '80', '-y', '24', 'sh', '-c',
      `TERM=xterm-256color LANG=C.UTF-8 exec ${process.execPath} ${TELEMETRY} current --follow --host 127.0.0.1 --port ${daemon.port}`);
    const screen = () => tmux('capture-pane', '-p', '-t', 'c');
    const pid = Number(tmux('display-message', '-p', '-t', 'c', '#{pane_pid}').trim());
    const started = Date.now();
    await until(() => screen().includes(`1/${types} `), 120_000);
    const firstScreenMs = Date.now() - started;
    log(`  console: ${types} types on screen after ${firstScreenMs} ms`);
    const samples = [];
    let posted = 0;
    const end = Date.now() + seconds * 1000;
    while (Date.now() < end) {
      await request(`${daemon.url}/event`, { method: 'POST', body: JSON.stringify({ type: 'sensor-000005', data: { v: posted++ } }) });
      samples.push(procMemory(pid)?.rssMiB);
      await new Promise((r) => setTimeout(r, 200));
    }
    const t0 = Date.now();
    tmux('send-keys', '-t', 'c', 'End');
    await until(() => screen().includes(`${types}/${types} `), 60_000);
    const endKeyMs = Date.now() - t0;
    const mem = procMemory(pid);
    const t1 = Date.now();
    tmux('send-keys', '-t', 'c', 'q');
    await until(() => !alive(pid), 60_000);
    const quitMs = Date.now() - t1;
    const rss = samples.filter((x) => x !== undefined);
    return { types, seconds, posted, firstScreenMs, endKeyMs, quitMs, peakMiB: mem?.peakMiB, rssMiB: { min: Math.min(...rss), max: Math.max(...rss) } };
  } finally {
    try { tmux('kill-server'); } catch { /* gone */ }
    await daemon.stop();
  }
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

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
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
    const figures = await consoleRun({ tmp, types: Number(process.argv[2] ?? 100_000), log: (l) => process.stderr.write(`${l}\n`) });
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
