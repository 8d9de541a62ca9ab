import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runLoad } from './load.mjs';
import { historyLine, eventBodies } from './payload.mjs';
import { request, startDaemon, NO_ROLLUPS } from './servers.mjs';
import { median } from './stats.mjs';

// History at scale: a generated history of `lines` envelopes over ten site days (one line
// every 86.4 ms, 20 types in turn), then GET /history for one type over one hour (cold: the
// index being built; warm; after a restart: the saved index), a full scan of one type in MB/s
// against jq and grep -c over the same files, and POST /event p99 while full scans run.

const TYPE = 'weather-07';
const DAYS = 10;
const DAY0 = Date.UTC(2025, 0, 1, 12);

/** Write the history; returns {files, bytes}. */
export function writeSpreadHistory(siteDir, lines) {
  fs.mkdirSync(siteDir, { recursive: true });
  const step = (DAYS * 86_400_000) / lines;
  const files = [];
  let bytes = 0;
  for (let d = 0, seq = 0; d < DAYS; d++) {
    const key = new Date(DAY0 + d * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    const file = path.join(siteDir, `site_${key}.ndjson`);
    const fd = fs.openSync(file, 'w');
    const end = Math.round(((d + 1) * lines) / DAYS);
    while (seq < end) {
      const parts = [];
      for (let k = 0; k < 10_000 && seq < end; k++) parts.push(historyLine(++seq, DAY0 + Math.floor(seq * step)));
      bytes += fs.writeSync(fd, parts.join(''));
    }
    fs.closeSync(fd);
    files.push(file);
  }
  return { files, bytes };
}

/** Time one full history query (following every page); resolves {ms, events}. */
async function timeQuery(url, query) {
  const t0 = process.hrtime.bigint();
  let events = 0;
  let cursor = null;
  do {
    const res = await request(`${url}/history?${query}&limit=10000${cursor ? `&cursor=${cursor}` : ''}`);
    if (res.status !== 200) throw new Error(`GET /history?${query} answered ${res.status}: ${res.body}`);
    const page = JSON.parse(res.body);
    events += page.events.length;
    cursor = page.next_cursor;
  } while (cursor);
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, events };
}

function timeCommand(command, args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    execFile(command, args, { maxBuffer: 1 << 26, shell: false }, (error, stdout) => {
      if (error) return reject(error);
      resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, out: stdout.trim() });
    });
  });
}

/** Run the history benchmark; returns its figures. */
export async function historyBench({ tmp, lines, pin, loadPin, seconds, log }) {
  const siteDir = path.join(tmp, 'site-history-query');
  const t0 = Date.now();
  const { files, bytes } = writeSpreadHistory(siteDir, lines);
  const mib = bytes / 2 ** 20;
  log(`  history: ${lines} lines, ${mib.toFixed(0)} MiB over ${DAYS} day files written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const hourFrom = new Date(DAY0 + 4.5 * 86_400_000).toISOString();
  const hourTo = new Date(DAY0 + 4.5 * 86_400_000 + 3_600_000).toISOString();
  const hour = `type=${TYPE}&from=${hourFrom}&to=${hourTo}`;
  const figures = { lines, bytes, type: TYPE, hour: [hourFrom, hourTo] };

  // the first start has no snapshot: it replays every file (minutes for 10M lines on a busy machine)
  let d = await startDaemon({ siteDir, pin, readyTimeoutMs: 1_800_000, args: NO_ROLLUPS });
  figures.firstStartMs = d.readyMs;
  try {
    log(`  history: daemon up in ${d.readyMs.toFixed(0)} ms (first start: replays every file, writes the snapshot)`);
    figures.coldHour = await timeQuery(d.url, hour);
    const warm = [];
    for (let i = 0; i < 20; i++) warm.push((await timeQuery(d.url, hour)).ms);
    figures.warmHourMs = median(warm);
    log(`  history: one type, one hour: ${figures.coldHour.events} events; cold ${figures.coldHour.ms.toFixed(0)} ms (index built), warm ${figures.warmHourMs.toFixed(1)} ms`);
  } finally {
    await d.stop();
  }
  d = await startDaemon({ siteDir, pin, args: NO_ROLLUPS });
  try {
    figures.restartHour = await timeQuery(d.url, hour);
    log(`  history: after a restart (saved index): ${figures.restartHour.ms.toFixed(1)} ms`);
    const scan = await timeQuery(d.url, `type=${TYPE}`);
    const jq = await timeCommand('jq', ['-c', `select(.type == "${TYPE}") | .seq`, ...files]);
    const grep = await timeCommand('grep', ['-c', `"type":"${TYPE}"`, ...files]);
    const jqCount = jq.out.split('\n').length;
    const grepCount = grep.out.split('\n').reduce((n, l) => n + Number(l.split(':').at(-1)), 0);
    figures.scan = {
      daemon: { ms: scan.ms, events: scan.events, mibPerS: mib / (scan.ms / 1000) },
      jq: { ms: jq.ms, events: jqCount, mibPerS: mib / (jq.ms / 1000) },
      grep: { ms: grep.ms, events: grepCount, mibPerS: mib / (grep.ms / 1000) },
    };
    log(`  history: full scan of ${TYPE}: daemon ${figures.scan.daemon.mibPerS.toFixed(0)} MiB/s (${scan.events}), jq ${figures.scan.jq.mibPerS.toFixed(0)} MiB/s (${jqCount}), grep -c ${figures.scan.grep.mibPerS.toFixed(0)} MiB/s (${grepCount})`);
    // POST latency alone, then while full scans run back to back
    const bodies = eventBodies();
    const quiet = await runLoad({ url: d.url, path: '/event', connections: 16, seconds, bodies, rate: 2000 }, { pin: loadPin });
    let scanning = true;
    const scans = (async () => { let n = 0; while (scanning) { await timeQuery(d.url, `type=${TYPE}`); n++; } return n; })();
    const busy = await runLoad({ url: d.url, path: '/event', connections: 16, seconds, bodies, rate: 2000 }, { pin: loadPin });
    scanning = false;
    const scansDone = await scans;
    figures.postDuringScan = { quiet: { p50: quiet.p50, p99: quiet.p99, rps: quiet.rps }, scanning: { p50: busy.p50, p99: busy.p99, rps: busy.rps }, scans: scansDone };
    log(`  history: POST /event at 2,000/s p99 ${quiet.p99.toFixed(2)} ms alone, ${busy.p99.toFixed(2)} ms during ${scansDone} full scan(s)`);
  } finally {
    await d.stop();
  }
  fs.rmSync(siteDir, { recursive: true, force: true });
  return figures;
}
