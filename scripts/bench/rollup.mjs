import fs from 'node:fs';
import path from 'node:path';
import { RollupEngine } from '../../dist/daemon/rollup/engine.js';
import { appendPending, writeCheckpoint } from '../../dist/daemon/rollup/tier-store.js';
import { eventBatch } from './payload.mjs';
import { request, startDaemon } from './servers.mjs';
import { median, summarise } from './stats.mjs';

// Rollups (issue 26, docs/rollups.md): a one-year step=auto query of one type, and ingest with
// rollups on against ingest with them off.
//
// The query's tiers are built directly: `lines` readings of one type over 365 days are folded
// by the daemon's own engine (dist/daemon/rollup/engine.js) in this process and written as the
// daemon writes them (tier files and a checkpoint), instead of posting them through HTTP
// (10,000,000 events would take most of an hour on a busy 2-core machine). The daemon then
// starts on that site directory (no raw files: the checkpoint is at site:0) and answers.

const TYPE = 'weather';
const YEAR0 = Date.UTC(2025, 0, 1);
const YEAR_MS = 365 * 86_400_000;
const QUERIES = 200;

/** Fold `lines` readings of one type over a year into the tiers under `siteDir`; returns {ms, linesPerS}. */
function buildTiers(siteDir, lines) {
  const root = path.join(siteDir, '.meridian', 'rollups');
  fs.mkdirSync(root, { recursive: true });
  const engine = new RollupEngine('UTC', []);
  const files = {};
  const step = YEAR_MS / lines;
  const t0 = performance.now();
  for (let i = 0; i < lines; i++) {
    const data = `{"temperature_c":${(8.25 + (i % 17) / 10).toFixed(2)},"humidity_pct":${61 + (i % 7)},"wind":{"speed_ms":${(i % 90) / 10},"dir_deg":${i % 360}},"station":"mast-north"}`;
    engine.fold({ type: TYPE, at: YEAR0 + Math.floor(i * step), data, ownMaxAge: undefined });
    if (i % 100_000 === 99_999) appendPending(root, engine, files);
  }
  appendPending(root, engine, files);
  writeCheckpoint(root, { version: 1, cursor: 'site:0', files, late: engine.late, omitted: engine.omitted, types: engine.state() });
  const ms = performance.now() - t0;
  return { ms, linesPerS: lines / (ms / 1000) };
}

/** The one-year step=auto query: p50 and p95 of `QUERIES` queries one after another. */
export async function rollupQueryBench({ tmp, lines, pin, log, quick }) {
  const siteDir = path.join(tmp, 'site-rollup-query');
  const build = buildTiers(siteDir, lines);
  log(`  rollups: ${lines} readings of one type over a year folded into the tiers in ${(build.ms / 1000).toFixed(1)} s (${build.linesPerS.toFixed(0)} lines/s, in the bench process)`);
  const d = await startDaemon({ siteDir, pin });
  try {
    const query = `/history?type=${TYPE}&step=auto&width=1000&from=${new Date(YEAR0).toISOString()}&to=${new Date(YEAR0 + YEAR_MS).toISOString()}`;
    const times = [];
    let answer;
    for (let i = 0; i < (quick ? 20 : QUERIES); i++) {
      const t0 = performance.now();
      const res = await request(`${d.url}${query}`);
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`GET ${query} answered ${res.status}: ${res.body.slice(0, 300)}`);
      answer ??= JSON.parse(res.body);
    }
    times.sort((a, b) => a - b);
    const figures = { lines, build, step: answer.step, buckets: answer.buckets.length, p50: median(times), p95: times[Math.ceil(times.length * 0.95) - 1], queries: times.length };
    log(`  rollups: one year, step=auto width 1000: step ${figures.step}, ${figures.buckets} buckets, p50 ${figures.p50.toFixed(1)} ms, p95 ${figures.p95.toFixed(1)} ms`);
    return figures;
  } finally {
    await d.stop();
    fs.rmSync(siteDir, { recursive: true, force: true });
  }
}

/** POST /events (batches of 1,000 weather events, 11 numeric fields over 20 types) with rollups on and off, rounds interleaved. */
export async function rollupIngestBench({ tmp, rounds, seconds, pin, load, log, problems }) {
  const bodies = Array.from({ length: 20 }, (_, b) => eventBatch(1000, b * 1000));
  const daemons = {
    on: await startDaemon({ siteDir: path.join(tmp, 'rollup-on'), pin }),
    off: await startDaemon({ siteDir: path.join(tmp, 'rollup-off'), pin, args: ['--rollups', 'off'] }),
  };
  try {
    const runs = { on: [], off: [] };
    for (let r = 0; r < rounds; r++) {
      for (const who of r % 2 ? ['off', 'on'] : ['on', 'off']) {
        const res = await load(daemons[who].url, { path: '/events', bodies, contentType: 'application/x-ndjson', connections: 4, seconds });
        if (res.non2xx || res.errors) problems.push(`rollup ingest ${who} round ${r + 1}: ${res.non2xx} non-2xx, ${res.errors} errors`);
        runs[who].push({ ...res, rps: res.rps * 1000 });
        log(`  rollups ${who.padEnd(3)} round ${r + 1}: ${(res.rps * 1000).toFixed(0)} events/s`);
      }
    }
    const on = summarise(runs.on);
    const off = summarise(runs.off);
    return { on, off, ratio: on.rps / off.rps };
  } finally {
    for (const d of Object.values(daemons)) await d.stop();
  }
}

/** The report lines of the rollup phases. */
export function rollupReport(f, met) {
  const out = [];
  if (f.rollupQuery) {
    const q = f.rollupQuery;
    out.push(`rollups: one type, one year (${q.lines} readings; tiers built directly at ${q.build.linesPerS.toFixed(0)} lines/s), step=auto width 1000 -> ${q.step}, ` +
      `${q.buckets} buckets: p50 ${q.p50.toFixed(1)} ms, p95 ${q.p95.toFixed(1)} ms (target < 200 ms: ${met(q.p95 < 200)})`);
  }
  if (f.rollupIngest) {
    const i = f.rollupIngest;
    out.push(`rollups: POST /events with rollups on ${i.on.rps.toFixed(0)} events/s, off ${i.off.rps.toFixed(0)} events/s = ${i.ratio.toFixed(2)}x (target >= 0.9x: ${met(i.ratio >= 0.9)})`);
  }
  return out;
}
