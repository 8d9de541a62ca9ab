import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { compressFile } from '../../dist/daemon/storage/compressed.js';
import { countPoints, hasInflux, startInflux } from './influx.mjs';
import { eventBatch, lineProtocolBatch } from './payload.mjs';
import { request, startBaseline, startDaemon } from './servers.mjs';
import { writeHistory } from './startup.mjs';
import { median, spreadPct, summarise } from './stats.mjs';

// The operations figures of issue 17: batch ingest (1,000 events per request) against the
// bare Node ceiling and InfluxDB 1.6, the /metrics scrape with 100,000 types, and gzip of
// a day file. Each returns figures for the report; problems go to `ctx.problems`.

const BATCH = 1000;
// different bodies, cycled by the load generator: InfluxDB would otherwise overwrite the same points
const BODIES = 20;

/**
 * Rounds of POST /events (NDJSON, 1,000 events each) against the daemon in `batch` and
 * `always`, the baseline appending the same lines to a file, and InfluxDB's /write with the
 * same events as line protocol. Figures are events/s (req/s x 1,000).
 */
export async function batchIngest(ctx) {
  const { tmp, rounds, seconds, pin, load, log } = ctx;
  const ndjson = Array.from({ length: BODIES }, (_, b) => eventBatch(BATCH, b * BATCH));
  const lines = Array.from({ length: BODIES }, (_, b) => lineProtocolBatch(BATCH, b * BATCH));
  const servers = { baseline: await startBaseline({ pin, batchFile: path.join(tmp, 'baseline-batch.ndjson') }) };
  const stops = [servers.baseline];
  try {
    for (const fsync of ['batch', 'always']) {
      servers[fsync] = await startDaemon({ siteDir: path.join(tmp, `batch-${fsync}`), fsync, pin });
      stops.push(servers[fsync]);
    }
    if (hasInflux()) {
      servers.influx = await startInflux(path.join(tmp, 'influx'), { pin });
      stops.push(servers.influx);
    } else {
      ctx.notes.push('InfluxDB comparison skipped: influxd is not installed (apt-get install influxdb)');
    }
    const runs = {};
    const acknowledged = { batch: 0, always: 0 };
    for (let r = 0; r < rounds; r++) {
      const order = Object.keys(servers);
      for (let k = 0; k < r % order.length; k++) order.push(order.shift());
      for (const who of order) {
        const job = who === 'influx'
          ? { path: '/write?db=bench&precision=ms', bodies: lines, contentType: 'text/plain' }
          : { path: '/events', bodies: ndjson, contentType: 'application/x-ndjson' };
        const res = await load(servers[who].url, { ...job, connections: 4, seconds });
        const events = { ...res, rps: res.rps * BATCH };
        (runs[who] ??= []).push(events);
        if (res.non2xx || res.errors) ctx.problems.push(`batch ${who} round ${r + 1}: ${res.non2xx} non-2xx, ${res.errors} errors`);
        if (who in acknowledged) acknowledged[who] += res.ok * BATCH;
        log(`  POST batches of ${BATCH} ${who.padEnd(8)} round ${r + 1}: ${events.rps.toFixed(0)} events/s (${res.rps.toFixed(1)} req/s, p50 ${res.p50.toFixed(1)} ms)`);
      }
    }
    for (const fsync of ['batch', 'always']) {
      const stored = countLines(path.join(tmp, `batch-${fsync}`));
      // requests in flight when the load stopped may have been recorded without being counted
      if (stored < acknowledged[fsync] || stored > acknowledged[fsync] + 4 * BATCH * rounds) {
        ctx.problems.push(`batch --fsync ${fsync}: ${stored} lines stored for ${acknowledged[fsync]} acknowledged events`);
      }
    }
    if (servers.influx) ctx.influxPoints = await countPoints(servers.influx.url);
    const figures = { baseline: summarise(runs.baseline) };
    for (const who of ['batch', 'always']) figures[who] = ratios(runs[who], runs.baseline, runs.influx);
    if (runs.influx) figures.influx = ratios(runs.influx, runs.baseline);
    return figures;
  } finally {
    for (const s of stops) await s.stop();
  }
}

/** /metrics scrape time with `types` types in the view (posted in batches of 1,000). */
export async function metricsScrape(ctx, types = 100_000) {
  const d = await startDaemon({ siteDir: path.join(ctx.tmp, 'metrics'), pin: ctx.pin });
  try {
    for (let from = 0; from < types; from += BATCH) {
      const body = Array.from({ length: Math.min(BATCH, types - from) }, (_, i) => JSON.stringify({ type: `sensor-${from + i}`, data: i })).join('\n');
      const res = await request(`${d.url}/events`, { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
      if (res.status !== 200) throw new Error(`posting types answered ${res.status}: ${res.body}`);
    }
    const times = [];
    let bytes = 0;
    let series = 0;
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const res = await request(`${d.url}/metrics`);
      times.push(performance.now() - t0);
      bytes = Buffer.byteLength(res.body);
      series = res.body.split('\n').filter((l) => l.startsWith('meridian_reading_age_seconds{')).length;
      if (!res.body.includes(`meridian_current_types ${types}`)) ctx.problems.push(`/metrics does not say ${types} types`);
    }
    ctx.log(`  /metrics with ${types} types: ${times.map((t) => t.toFixed(1)).join('/')} ms, ${bytes} bytes, ${series} age series`);
    return { types, ms: median(times), spreadPct: spreadPct(times), bytes, ageSeries: series, runs: times };
  } finally {
    await d.stop();
  }
}

/** gzip of one generated day file of `lines` weather envelopes (what --compress-after does). */
export async function compression(ctx, lines) {
  const dir = path.join(ctx.tmp, 'compress');
  const bytes = writeHistory(dir, lines, 1);
  const file = path.join(dir, fs.readdirSync(dir).find((n) => n.endsWith('.ndjson')));
  const t0 = performance.now();
  await compressFile(file);
  const seconds = (performance.now() - t0) / 1000;
  const gz = fs.statSync(`${file}.gz`).size;
  const figures = { lines, bytes, gzBytes: gz, ratio: bytes / gz, mbPerSecond: bytes / 2 ** 20 / seconds, seconds };
  ctx.log(`  compression: ${(bytes / 2 ** 20).toFixed(0)} MiB -> ${(gz / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(1)} s (write, sync, verify, rename)`);
  fs.rmSync(dir, { recursive: true, force: true });
  return figures;
}

function ratios(runs, baseRuns, influxRuns) {
  const s = summarise(runs);
  s.ratio = median(runs.map((r, i) => r.rps / baseRuns[i].rps));
  s.ratioSpreadPct = spreadPct(runs.map((r, i) => r.rps / baseRuns[i].rps));
  if (influxRuns) s.influxRatio = median(runs.map((r, i) => r.rps / influxRuns[i].rps));
  return s;
}

// the daemon's own events (meridian.stale / meridian.fresh, when a bench type turns stale by its
// learned limit while the load pauses) were never posted: not counted
const DAEMON_LINE = /^\{"seq":\d+,"ts":"[^"]*","type":"meridian\./gm;

function countLines(dir) {
  let n = 0;
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.ndjson'))) {
    const data = fs.readFileSync(path.join(dir, name));
    for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) n++;
    n -= data.toString('utf8').match(DAEMON_LINE)?.length ?? 0;
  }
  return n;
}
