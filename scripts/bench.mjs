#!/usr/bin/env node
// npm run bench: the real daemon against a bare Node baseline server, same load, rounds
// interleaved; prints req/s, p50, p99 and the ratio to the baseline, checks that the files
// hold every acknowledged event, and writes the figures as JSON to bench-results/.
// It never fails a test run: it is not part of npm test, and missed targets are printed,
// not thrown. Options: --quick, --rounds N, --seconds S, --events N, --history N,
// --query-lines N, --loader autocannon|wrk, --only post,get,rss,startup,forward,batch,metrics,compress,history,history-gz,fanout,console,rules,night,rollup-query,rollup-ingest,fleet
// (forward-ingest: only the forwarding POST part), --forward-events N, --night-lines N, --fleet-units N,
// --fleet-rate N (events/s per unit), --fleet-backlog N, --fleet-window S, --out DIR.
// See docs/performance.md and docs/forwarding.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { hasWrk, pinTo, runLoad } from './bench/load.mjs';
import { fleetBench, fleetReport } from './bench/fleet.mjs';
import { forwardReport, forwardRun } from './bench/forward.mjs';
import { batchIngest, compression, metricsScrape } from './bench/ops.mjs';
import { eventBodies, weatherEvent } from './bench/payload.mjs';
import { consoleRun } from './bench/console.mjs';
import { fanoutBench } from './bench/fanout.mjs';
import { historyBench } from './bench/history.mjs';
import { historyGzBench } from './bench/history-gz.mjs';
import { rulesBench, rulesReport } from './bench/rules.mjs';
import { nightBench } from './bench/night.mjs';
import { rollupIngestBench, rollupQueryBench, rollupReport } from './bench/rollup.mjs';
import { postMany, request, startBaseline, startDaemon } from './bench/servers.mjs';
import { timeStartups, writeHistory } from './bench/startup.mjs';
import { HEADER, median, row, spreadPct, summarise } from './bench/stats.mjs';
import { checkRound, SiteFiles } from './bench/verify.mjs';

const { values: opt } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false }, rounds: { type: 'string' }, seconds: { type: 'string' },
    events: { type: 'string' }, history: { type: 'string' }, 'query-lines': { type: 'string' }, loader: { type: 'string' },
    only: { type: 'string' }, out: { type: 'string', default: 'bench-results' }, 'forward-events': { type: 'string' },
    'night-lines': { type: 'string' }, 'fleet-units': { type: 'string' }, 'fleet-rate': { type: 'string' }, 'fleet-backlog': { type: 'string' },
    'fleet-window': { type: 'string' },
  },
});
const quick = opt.quick;
const rounds = Number(opt.rounds ?? (quick ? 1 : 3));
const seconds = Number(opt.seconds ?? (quick ? 2 : 3));
const targetEvents = Number(opt.events ?? (quick ? 100_000 : 1_000_000));
const historyLines = Number(opt.history ?? 1_000_000);
const queryLines = Number(opt['query-lines'] ?? (quick ? 1_000_000 : 10_000_000));
// wrk (C, steadier figures) when installed, else autocannon (installed with the dev dependencies)
const loader = opt.loader ?? (hasWrk() ? 'wrk' : 'autocannon');
if (loader === 'wrk' && !hasWrk()) throw new Error('--loader wrk: wrk is not installed');
const phases = new Set((opt.only ?? 'post,get,rss,startup,forward,batch,metrics,compress,history,history-gz,fanout,console,rules,night,rollup-query,rollup-ingest,fleet').split(','));
// the fleet phase: units posting steadily, a unit back with a day of backlog at one event a second
const fleet = { units: Number(opt['fleet-units'] ?? 10), rate: Number(opt['fleet-rate'] ?? 20), backlog: Number(opt['fleet-backlog'] ?? 86_400), windowS: Number(opt['fleet-window'] ?? 10) };
const nightLines = Number(opt['night-lines'] ?? 1_000_000);
const forwardEvents = Number(opt['forward-events'] ?? (quick ? 100_000 : 1_000_000));
const cpus = os.availableParallelism?.() ?? os.cpus().length;
const serverPin = pinTo(0, cpus);
const loadPin = pinTo(1, cpus);
const CONNECTIONS = [1, 16, 64];
const MODES = ['batch', 'always', 'off'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'meridian-bench-'));
const log = (line) => process.stderr.write(`${line}\n`);
const results = { started: new Date().toISOString(), commit: gitCommit(), machine: machine(), options: { rounds, seconds, targetEvents, historyLines, forwardEvents, loader, pinned: serverPin.length > 0 }, figures: {}, problems: [] };
const load = (url, job, using = loader) => runLoad({ url, seconds, ...job }, { pin: loadPin, loader: using });

log(`bench: ${rounds} round(s) of ${seconds} s per run, loader ${loader}, ${cpus} CPU(s)` +
  `${serverPin.length ? ', servers on CPU 0, load on CPU 1' : ', not pinned (no taskset or one CPU)'}; temp ${tmp}`);
const stops = [];
try {
  if (phases.has('post') || phases.has('get') || phases.has('rss')) {
    const baseline = await startBaseline({ pin: serverPin });
    stops.push(baseline);
    const daemons = {};
    for (const fsync of MODES) {
      const siteDir = path.join(tmp, `site-${fsync}`);
      daemons[fsync] = { d: await startDaemon({ siteDir, fsync, pin: serverPin }), files: new SiteFiles(siteDir), posted: 0 };
      stops.push(daemons[fsync].d);
    }
    if (phases.has('post')) await postRounds(baseline, daemons);
    if (phases.has('get')) await getRounds(baseline);
    if (phases.has('rss')) await memoryRun(daemons.batch);
    for (const s of stops.splice(0)) await s.stop();
  }
  if (phases.has('console')) await phase('console', async () => { results.figures.console = await consoleRun({ tmp, types: quick ? 20_000 : 100_000, seconds: quick ? 5 : 20, log }); });
  if (phases.has('startup')) await phase('startup', startupRun);
  if (phases.has('forward') || phases.has('forward-ingest')) {
    await phase('forward', () => forwardRun({ tmp, events: forwardEvents, seconds, rounds, serverPin, load, log, results, catchUpRates: phases.has('forward') }));
  }
  // autocannon for the batch rounds whatever the loader: the wrk script sends JSON bodies only
  const ops = { tmp, rounds, seconds, pin: serverPin, log, problems: results.problems, notes: [],
    load: (url, job) => runLoad({ url, seconds, ...job }, { pin: loadPin, loader: 'autocannon' }) };
  if (phases.has('batch')) await phase('batch', async () => { results.figures.batchIngest = await batchIngest(ops); });
  if (phases.has('metrics')) await phase('metrics', async () => { results.figures.metricsScrape = await metricsScrape(ops, quick ? 20_000 : 100_000); });
  if (phases.has('compress')) await phase('compress', async () => { results.figures.compression = await compression(ops, quick ? 100_000 : 500_000); });
  results.notes = ops.notes;
  if (phases.has('history')) await phase('history', async () => { results.figures.history = await historyBench({ tmp, lines: queryLines, pin: serverPin, loadPin, seconds, log }); });
  if (phases.has('history-gz')) await phase('history-gz', async () => { results.figures.historyGz = await historyGzBench({ tmp, lines: historyLines, pin: serverPin, log }); });
  if (phases.has('rules')) {
    await phase('rules', async () => { results.figures.rules = await rulesBench({ tmp, rounds, seconds, pin: serverPin, load, log, problems: results.problems }); });
  }
  if (phases.has('night')) await phase('night', async () => { results.figures.night = await nightBench({ tmp, lines: nightLines, pin: serverPin, log }); });
  if (phases.has('rollup-query')) await phase('rollup-query', async () => { results.figures.rollupQuery = await rollupQueryBench({ tmp, lines: queryLines, pin: serverPin, log, quick }); });
  if (phases.has('rollup-ingest')) await phase('rollup-ingest', async () => { results.figures.rollupIngest = await rollupIngestBench({ tmp, rounds, seconds, pin: serverPin, load, log, problems: results.problems }); });
  if (phases.has('fanout')) await phase('fanout', async () => { results.figures.fanout = await fanoutBench({ tmp, pin: serverPin, loadPin, seconds, subscribers: 100, rate: 2000, log }); });
  if (phases.has('fleet')) await phase('fleet', async () => { results.figures.fleet = await fleetBench({ tmp, ...fleet, log }); });
} finally {
  for (const s of stops) await s.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
printReport();
// a phase that crashed is a broken bench, not a missed target: the exit status says so
if (results.problems.some((p) => p.startsWith('phase '))) process.exitCode = 1;

/** Run one phase; a crash is recorded as a problem (with its reason) and the next phase runs. */
async function phase(name, run) {
  try {
    await run();
  } catch (error) {
    log(`  ${name}: the phase crashed: ${error?.stack ?? error}`);
    results.problems.push(`phase ${name} crashed: ${error?.message ?? error}`);
  }
}

async function postRounds(baseline, daemons) {
  const bodies = eventBodies();
  const runs = {};
  for (let r = 0; r < rounds; r++) {
    for (const c of CONNECTIONS) {
      // interleave: the baseline and each mode in turn, the order rotating between rounds
      const order = ['baseline', ...MODES];
      for (let k = 0; k < r % order.length; k++) order.push(order.shift());
      for (const who of order) {
        const url = who === 'baseline' ? baseline.url : daemons[who].d.url;
        const res = await load(url, { path: '/event', connections: c, bodies });
        (runs[`${who} c${c}`] ??= []).push(res);
        if (who !== 'baseline') {
          const daemon = daemons[who];
          // wrk stops counting at its deadline: per connection one answer may go uncounted
          // besides the request still in flight; autocannon counts every answer it got
          const cut = loader === 'wrk' ? 2 * c : c;
          const check = await checkRound(daemon.files, res.ok, cut + res.errors + res.timeouts,
            async (type) => (await request(`${daemon.d.url}/current/${encodeURIComponent(type)}`)).body);
          for (const p of check.problems) results.problems.push(`POST ${who} c${c} round ${r + 1}: ${p}`);
          if (res.non2xx) results.problems.push(`POST ${who} c${c} round ${r + 1}: ${res.non2xx} non-2xx answers`);
        }
        log(`  POST /event ${who.padEnd(8)} c${String(c).padEnd(3)} round ${r + 1}: ${res.rps.toFixed(0)} req/s p50 ${res.p50.toFixed(2)} ms p99 ${res.p99.toFixed(2)} ms`);
      }
    }
  }
  for (const c of CONNECTIONS) {
    const base = runs[`baseline c${c}`];
    results.figures[`POST /event baseline c${c}`] = summarise(base);
    for (const mode of MODES) results.figures[`POST /event --fsync ${mode} c${c}`] = compare(runs[`${mode} c${c}`], base);
  }
}

async function getRounds(baseline) {
  const siteDir = path.join(tmp, 'site-current');
  const d = await startDaemon({ siteDir, pin: serverPin });
  stops.push(d);
  const types = 1000;
  const ok = await postMany(d.url, types, (i) => JSON.stringify({ ...weatherEvent(i, types), type: `sensor-${String(i).padStart(4, '0')}` }));
  // the shape Meridian's own client asks for (the baseline sends the same bytes); the
  // original body alone is the view's cached bytes
  const first = await request(`${d.url}/current?freshness=true`);
  const count = Object.keys(JSON.parse(first.body).current).length;
  if (ok !== types || count !== types) results.problems.push(`GET /current: ${count} types current after ${ok} posts of ${types}`);
  const etag = first.headers.etag;
  const again = await request(`${d.url}/current?freshness=true`, { headers: { 'if-none-match': etag } });
  if (again.status !== 304) results.problems.push(`GET /current with If-None-Match answered ${again.status}, not 304`);
  results.figures['GET /current body bytes'] = Buffer.byteLength(first.body);
  const runs = {};
  const cases = [
    ['baseline /current', baseline.url, '/current'], ['daemon /current', d.url, '/current?freshness=true'],
    ['daemon /current 304', d.url, '/current?freshness=true', { 'if-none-match': etag }],
    ['baseline /current/{type}', baseline.url, '/current/sensor-0042'], ['daemon /current/{type}', d.url, '/current/sensor-0042'],
  ];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...cases].reverse() : cases;
    for (const [name, url, p, headers] of order) {
      const res = await load(url, { path: p, connections: 16, headers });
      (runs[name] ??= []).push(res);
      if (res.non2xx || res.errors) results.problems.push(`GET ${name} round ${r + 1}: ${res.non2xx} non-2xx, ${res.errors} errors`);
      log(`  GET ${name.padEnd(26)} c16 round ${r + 1}: ${res.rps.toFixed(0)} req/s p50 ${res.p50.toFixed(2)} ms p99 ${res.p99.toFixed(2)} ms`);
    }
  }
  results.figures['GET /current baseline c16 (1,000 types)'] = summarise(runs['baseline /current']);
  results.figures['GET /current c16 (1,000 types)'] = compare(runs['daemon /current'], runs['baseline /current']);
  results.figures['GET /current If-None-Match 304 c16'] = compare(runs['daemon /current 304'], runs['baseline /current']);
  results.figures['GET /current/{type} baseline c16'] = summarise(runs['baseline /current/{type}']);
  results.figures['GET /current/{type} c16'] = compare(runs['daemon /current/{type}'], runs['baseline /current/{type}']);
  await d.stop();
}

async function memoryRun(daemon) {
  // top the batch daemon up to `targetEvents` posted events in one long run at 64 connections
  const remaining = Math.max(0, targetEvents - daemon.files.lines);
  const samples = [];
  const started = Date.now();
  const sampler = setInterval(() => samples.push({ s: (Date.now() - started) / 1000, ...daemon.d.memory() }), 500);
  let res = { ok: 0, rps: NaN, errors: 0, timeouts: 0 };
  // a number of requests, not a duration: autocannon whatever the loader (wrk has no such limit)
  if (remaining > 0) res = await load(daemon.d.url, { path: '/event', connections: 64, bodies: eventBodies(), amount: remaining, seconds: 600 }, 'autocannon');
  clearInterval(sampler);
  const check = await checkRound(daemon.files, res.ok, 64 + res.errors + res.timeouts,
    async (type) => (await request(`${daemon.d.url}/current/${encodeURIComponent(type)}`)).body);
  for (const p of check.problems) results.problems.push(`memory run: ${p}`);
  const mem = daemon.d.memory();
  const half = samples.filter((x) => x.s >= samples.at(-1)?.s / 2);
  results.figures.memory = {
    events: daemon.files.lines, seconds: (Date.now() - started) / 1000, rps: res.rps,
    peakMiB: mem?.peakMiB, rssMiB: mem?.rssMiB,
    secondHalfRssMiB: half.length ? { min: Math.min(...half.map((x) => x.rssMiB)), max: Math.max(...half.map((x) => x.rssMiB)) } : undefined,
    samples: samples.filter((_, i) => i % 4 === 0).map((x) => [x.s, Math.round(x.rssMiB)]),
  };
  log(`  memory: ${daemon.files.lines} events, peak ${mem?.peakMiB.toFixed(1)} MiB, now ${mem?.rssMiB.toFixed(1)} MiB`);
}

async function startupRun() {
  const siteDir = path.join(tmp, 'site-history');
  const t0 = Date.now();
  const bytes = writeHistory(siteDir, historyLines);
  log(`  history: ${historyLines} lines, ${(bytes / 2 ** 20).toFixed(0)} MiB written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const t = await timeStartups(siteDir, { reps: quick ? 1 : 3, pin: serverPin });
  results.figures.startup = {
    lines: historyLines, bytes, withSnapshotMs: median(t.withSnapshot), withSnapshotSpreadPct: spreadPct(t.withSnapshot),
    fullReplayMs: median(t.fullReplay), fullReplaySpreadPct: spreadPct(t.fullReplay), replayPeakMiB: t.replayPeakMiB, runs: t,
  };
  log(`  start-up: snapshot ${t.withSnapshot.map((x) => x.toFixed(0)).join('/')} ms, full replay ${t.fullReplay.map((x) => x.toFixed(0)).join('/')} ms`);
}

function compare(runs, baseRuns) {
  const s = summarise(runs);
  s.ratio = median(runs.map((r, i) => r.rps / baseRuns[i].rps));
  s.p99Ratio = median(runs.map((r, i) => r.p99 / baseRuns[i].p99));
  s.ratioSpreadPct = spreadPct(runs.map((r, i) => r.rps / baseRuns[i].rps));
  return s;
}

function printReport() {
  const f = results.figures;
  const met = (ok) => (ok ? 'met' : 'NOT met');
  const out = ['', `Meridian benchmark (${results.commit}, ${results.machine}, medians of ${rounds} round(s); noise = half the min-max spread)`, HEADER];
  const line = (name, key, target = '') => { if (f[key]) out.push(row(name, f[key], f[key].ratio !== undefined, target)); };
  for (const c of CONNECTIONS) {
    line(`POST /event baseline c${c}`, `POST /event baseline c${c}`);
    for (const mode of MODES) {
      const s = f[`POST /event --fsync ${mode} c${c}`];
      let target = '';
      if (s && mode === 'batch' && c === 16) target = `>= 0.85x, p99 <= 2x: ${met(s.ratio >= 0.85 && s.p99Ratio <= 2)}`;
      if (s && mode === 'always' && c === 64) target = `>= 0.6x: ${met(s.ratio >= 0.6)}`;
      line(`POST /event --fsync ${mode} c${c}`, `POST /event --fsync ${mode} c${c}`, target);
    }
  }
  line('GET /current baseline c16', 'GET /current baseline c16 (1,000 types)');
  const cur = f['GET /current c16 (1,000 types)'];
  line('GET /current c16 (1,000 types)', 'GET /current c16 (1,000 types)', cur ? `>= 1.0x: ${met(cur.ratio >= 1)}` : '');
  line('GET /current If-None-Match (304)', 'GET /current If-None-Match 304 c16');
  line('GET /current/{type} baseline c16', 'GET /current/{type} baseline c16');
  line('GET /current/{type} c16', 'GET /current/{type} c16');
  if (f.memory) {
    const m = f.memory;
    out.push('', `peak RSS after ${m.events} events: ${m.peakMiB?.toFixed(1)} MiB (target <= 100 MiB${m.events >= 1e6 ? '' : ' after 1,000,000'}: ${met(m.peakMiB <= 100)}); ` +
      (m.secondHalfRssMiB ? `RSS over the second half of the long run ${m.secondHalfRssMiB.min.toFixed(1)}-${m.secondHalfRssMiB.max.toFixed(1)} MiB` : 'no long run needed'));
  }
  if (f.startup) {
    const s = f.startup;
    out.push(`start-up with ${s.lines} lines (${(s.bytes / 2 ** 20).toFixed(0)} MiB): snapshot present ${s.withSnapshotMs.toFixed(0)} ms ` +
      `(target < 1000 ms: ${met(s.withSnapshotMs < 1000)}), snapshot deleted (full replay) ${s.fullReplayMs.toFixed(0)} ms, replay peak RSS ${s.replayPeakMiB.toFixed(0)} MiB`);
  }
  if (f.forward) out.push(...forwardReport(f.forward, met));
  if (f.fleet) out.push(...fleetReport(f.fleet, met));
  if (f.batchIngest) {
    const b = f.batchIngest;
    out.push('', `POST /events, NDJSON batches of 1,000 events, 4 connections (events/s; baseline: bare Node parsing and appending the same lines to a file)`);
    out.push(`  baseline ${b.baseline.rps.toFixed(0)} events/s`);
    for (const mode of ['batch', 'always']) {
      const m = b[mode];
      out.push(`  --fsync ${mode.padEnd(6)} ${m.rps.toFixed(0)} events/s  ${m.ratio.toFixed(2)}x baseline (target >= 0.5x: ${met(m.ratio >= 0.5)})` +
        (m.influxRatio !== undefined ? `  ${m.influxRatio.toFixed(2)}x InfluxDB (target >= 2x: ${met(m.influxRatio >= 2)})` : '') + `  noise ±${(m.ratioSpreadPct / 2).toFixed(0)}%`);
    }
    if (b.influx) out.push(`  InfluxDB 1.6 /write (line protocol, WAL synced per write) ${b.influx.rps.toFixed(0)} events/s  ${b.influx.ratio.toFixed(2)}x baseline`);
  }
  if (f.metricsScrape) {
    const m = f.metricsScrape;
    out.push(`GET /metrics with ${m.types} types: ${m.ms.toFixed(1)} ms median of ${m.runs.length} (${m.bytes} bytes, ${m.ageSeries} reading-age series: the cap)`);
  }
  if (f.compression) {
    const c = f.compression;
    out.push(`compression of a ${(c.bytes / 2 ** 20).toFixed(0)} MiB day file (${c.lines} events): ${c.mbPerSecond.toFixed(1)} MiB/s, ratio ${c.ratio.toFixed(1)}:1 (gzip level 6, with sync and read-back check)`);
  }
  if (f.history) out.push(...historyReport(f.history));
  if (f.historyGz) {
    const g = f.historyGz;
    out.push(`history over compressed days / plain days, ${g.lines} lines: one type over one hour ${g.ratios.hour.toFixed(2)}x, ` +
      `a page after a cursor ${g.ratios.page.toFixed(2)}x, a stream resume ${g.ratios.resume.toFixed(2)}x (target <= 2x)`);
  }
  if (f.fanout) out.push(...fanoutReport(f.fanout));
  if (f.rules) out.push(rulesReport(f.rules, met));
  out.push(...rollupReport(f, met));
  if (f.console?.skipped) out.push(`console: skipped (${f.console.skipped})`);
  else if (f.console) {
    for (const mode of ['stream', 'polling']) {
      const c = f.console[mode];
      out.push(`console with ${f.console.types} types ${mode === 'stream' ? 'on the stream' : 'polling'} (one posted 5/s for ${f.console.seconds} s): RSS ${c.rssMiB.min.toFixed(0)}-${c.rssMiB.max.toFixed(0)} MiB, ` +
        `peak ${c.peakMiB.toFixed(0)} MiB (target ~200 MiB: ${met(c.peakMiB <= 200)}); End shows the last row in ${c.endKeyMs} ms, q quits in ${c.quitMs} ms`);
    }
  }
  for (const note of results.notes ?? []) out.push(`note: ${note}`);
  out.push(results.problems.length ? `\nCORRECTNESS PROBLEMS:\n${results.problems.map((p) => `  - ${p}`).join('\n')}` : '\ncorrectness: every acknowledged event is on disk, seq contiguous, answers match the files');
  fs.mkdirSync(opt.out, { recursive: true });
  const file = path.join(opt.out, `${results.started.replace(/[:.]/g, '-')}-${results.commit}.json`);
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  out.push(`results written to ${file}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

function historyReport(h) {
  const mib = (h.bytes / 2 ** 20).toFixed(0);
  const s = h.scan;
  return [
    `history, ${h.lines} lines (${mib} MiB, 10 day files), ${h.type} over one hour (${h.coldHour.events} events): ` +
      `first query ${h.coldHour.ms.toFixed(0)} ms (index built), then ${h.warmHourMs.toFixed(1)} ms, after a restart ${h.restartHour.ms.toFixed(1)} ms (target well under 1000 ms: ${h.warmHourMs < 500 && h.restartHour.ms < 500 ? 'met' : 'NOT met'})`,
    `history full scan of one type: daemon ${s.daemon.mibPerS.toFixed(0)} MiB/s, jq ${s.jq.mibPerS.toFixed(0)} MiB/s (daemon ${(s.daemon.mibPerS / s.jq.mibPerS).toFixed(1)}x jq), ` +
      `grep -c ${s.grep.mibPerS.toFixed(0)} MiB/s (daemon ${(s.daemon.mibPerS / s.grep.mibPerS).toFixed(2)}x grep); counts ${s.daemon.events}/${s.jq.events}/${s.grep.events}`,
    `POST /event at 2,000/s while full scans run: p99 ${h.postDuringScan.scanning.p99.toFixed(2)} ms vs ${h.postDuringScan.quiet.p99.toFixed(2)} ms alone (${(h.postDuringScan.scanning.p99 / h.postDuringScan.quiet.p99).toFixed(2)}x)`,
  ];
}

function fanoutReport(f) {
  return [
    `stream fan-out, ${f.subscribers} subscribers of every type at ${f.rate} events/s: delivery p50 ${f.deliveryP50Ms} ms, p99 ${f.deliveryP99Ms} ms (${f.deliveredEvents} deliveries)`,
    `POST /event with ${f.subscribers} subscribers: unpaced ${f.withSubscribers.unpacedRps.toFixed(0)} req/s vs ${f.alone.unpacedRps.toFixed(0)} alone (${f.unpacedRatio.toFixed(2)}x); ` +
      `paced p99 ${f.withSubscribers.pacedP99.toFixed(2)} ms vs ${f.alone.pacedP99.toFixed(2)} ms (${f.pacedP99Ratio.toFixed(2)}x)`,
  ];
}

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

function machine() {
  return `${cpus} CPU ${os.cpus()[0]?.model.trim() ?? ''}, Node ${process.version}, load avg ${os.loadavg()[0].toFixed(2)}`;
}
