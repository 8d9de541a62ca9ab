// npm run bench -- --only forward: each sink catching up from a backlog in the files against
// the raw client library writing the same records in a tight loop (same batches), and POST
// throughput while two sinks catch up against none. Real mosquitto and PostgreSQL 15, started
// through the test helpers (test/helpers/*.ts, loaded with tsx).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import got from 'got';
import mqtt from 'mqtt';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';
import { migrations } from '../../dist/daemon/forward/postgres-schema.js';
import { fleetStatements, monthsOf } from '../../dist/daemon/forward/postgres-statements.js';
import { ndjsonBody } from '../../dist/daemon/forward/http.js';
import { eventBodies } from './payload.mjs';
import { freePort, request, startDaemon } from './servers.mjs';
import { writeHistory } from './startup.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BATCH = 500;

/** Run the forwarding phase; fills results.figures.forward. */
export async function forwardRun({ tmp, events, seconds, rounds, serverPin, load, log, results, catchUpRates = true }) {
  const { startPostgres } = await tsImport('../../test/helpers/postgres.ts', import.meta.url);
  const { startBroker } = await tsImport('../../test/helpers/mosquitto.ts', import.meta.url);
  const siteDir = path.join(tmp, 'site-forward');
  const t0 = Date.now();
  writeHistory(siteDir, events);
  const records = catchUpRates ? backlogRecords(siteDir) : [];
  log(`  forward: backlog of ${events} events written in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const stops = [];
  try {
    const db = await startPostgres();
    stops.push(async () => db.remove());
    const broker = await startBroker();
    stops.push(() => broker.remove());
    const peer = await startPeer();
    stops.push(() => peer.stop());
    const sinks = {
      postgres: { url: db.url, extra: 'table = "SINK"', raw: (name) => rawPostgres(db.url, name, records) },
      mqtt: { url: broker.url, extra: 'prefix = "SINK"\nretain_current = false', raw: (name) => rawMqtt(broker.url, name, records) },
      http: { url: peer.url, extra: '', raw: () => rawHttp(peer.url, records) },
    };
    const figures = {};
    for (const [kind, s] of catchUpRates ? Object.entries(sinks) : []) {
      const rawRate = await s.raw(`raw_${kind}`);
      const sinkRate = await catchUp(siteDir, `sink_${kind}`, s.url, s.extra, serverPin, records.length);
      figures[kind] = { events: records.length, rawPerS: rawRate, sinkPerS: sinkRate, ratio: sinkRate / rawRate };
      log(`  forward ${kind}: raw ${rawRate.toFixed(0)}/s, sink ${sinkRate.toFixed(0)}/s (${(sinkRate / rawRate).toFixed(2)}x)`);
    }
    figures.ingest = await ingestImpact(tmp, siteDir, { db, broker, seconds, rounds, serverPin, load, log });
    results.figures.forward = figures;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** What the bench prints for the forwarding phase. */
export function forwardReport(f, met) {
  const out = ['', 'forwarding: catch-up from a backlog in the files, sink vs the raw client writing the same records in a tight loop'];
  for (const kind of ['postgres', 'mqtt', 'http']) {
    const k = f[kind];
    if (k) out.push(`  ${kind.padEnd(9)} ${k.events} events: raw ${k.rawPerS.toFixed(0)}/s, sink ${k.sinkPerS.toFixed(0)}/s = ${k.ratio.toFixed(2)}x (goal >= 0.7x: ${met(k.ratio >= 0.7)})`);
  }
  const i = f.ingest;
  if (i) out.push(`  POST /event c16 with postgres+mqtt catching up: ${i.withSinks.toFixed(0)} req/s vs ${i.without.toFixed(0)} without = ${i.ratio.toFixed(2)}x (goal >= 0.8x: ${met(i.ratio >= 0.8)})`);
  return out;
}

function backlogRecords(siteDir) {
  const lines = [];
  for (const name of fs.readdirSync(siteDir).filter((n) => n.endsWith('.ndjson')).sort()) {
    for (const line of fs.readFileSync(path.join(siteDir, name), 'utf8').split('\n')) {
      if (line === '') continue;
      const e = JSON.parse(line);
      lines.push({ stream: 'site', seq: e.seq, ts: e.ts, type: e.type, line });
    }
  }
  return lines;
}

// The raw baselines: the same library, the same records, the same batches, nothing else.
async function rawPostgres(url, table, records) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const sql of migrations(table, 'bench')) await client.query(sql);
  // the sink's own statement (a batch of rows alone, as while catching up), its months' partitions made first
  const statements = fleetStatements(table);
  await client.query(statements.partitions, [monthsOf(records.map((r) => r.ts))]);
  const insert = statements.insert(false);
  return timed(records.length, async () => {
    for (let i = 0; i < records.length; i += BATCH) {
      const batch = records.slice(i, i + BATCH);
      await client.query(insert, ['bench', 'site', batch.map((r) => r.line), batch.map((r) => r.seq), batch.map((r) => r.ts), batch.map((r) => r.type)]);
    }
  }).finally(() => client.end());
}

async function rawMqtt(url, prefix, records) {
  const client = await mqtt.connectAsync(url, { protocolVersion: 5 });
  return timed(records.length, async () => {
    for (let i = 0; i < records.length; i += BATCH) {
      await Promise.all(records.slice(i, i + BATCH).map((r) => client.publishAsync(`${prefix}/${r.type}`, r.line,
        { qos: 1, properties: { userProperties: { stream: r.stream, seq: String(r.seq), id: `${r.stream}:${r.seq}` } } })));
    }
  }).finally(() => client.endAsync());
}

async function rawHttp(url, records) {
  const client = got.extend({ retry: { limit: 0 }, headers: { 'content-type': 'application/x-ndjson' } });
  return timed(records.length, async () => {
    for (let i = 0; i < records.length; i += BATCH) await client.post(url, { body: ndjsonBody(records.slice(i, i + BATCH), 'bench') });
  });
}

async function timed(count, fn) {
  const started = process.hrtime.bigint();
  await fn();
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

function sinkConfig(dir, name, url, extra) {
  const file = path.join(dir, `${name}.toml`);
  fs.writeFileSync(file, `[[sink]]\nname = "${name}"\nurl = "${url}"\nbatch_records = ${BATCH}\n${extra.replace('SINK', name)}\n`);
  return file;
}

// The daemon on the backlog with one sink: from /ready until /status says it caught up.
async function catchUp(siteDir, name, url, extra, pin, count) {
  const config = sinkConfig(path.dirname(siteDir), name, url, extra);
  const d = await startDaemon({ siteDir, pin, args: ['--config', config] });
  try {
    const started = process.hrtime.bigint();
    for (;;) {
      const s = JSON.parse((await request(`${d.url}/status`)).body).forward[0];
      if (s.lag_events === 0 && s.last_success !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return count / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    await d.stop();
  }
}

// POST throughput of a daemon on the backlog with no sink against the same daemon on the same
// backlog whose two sinks catch up from it: the only difference is the sinks.
async function ingestImpact(tmp, siteDir, { db, broker, seconds, rounds, serverPin, load, log }) {
  const bodies = eventBodies();
  const runs = { without: [], withSinks: [] };
  await warmHistory(siteDir, serverPin);
  for (let r = 0; r < rounds; r++) {
    const plain = await startDaemon({ siteDir, pin: serverPin });
    try {
      runs.without.push((await load(plain.url, { path: '/event', connections: 16, bodies })).rps);
    } finally {
      await plain.stop();
    }
    const config = path.join(tmp, `ingest-${r}.toml`);
    fs.writeFileSync(config, `[[sink]]\nname = "ingest_pg_${r}"\nurl = "${db.url}"\ntable = "ingest_pg_${r}"\n`
      + `[[sink]]\nname = "ingest_mqtt_${r}"\nurl = "${broker.url}"\nprefix = "ingest${r}"\n`);
    const busy = await startDaemon({ siteDir, pin: serverPin, args: ['--config', config] });
    try {
      // the load starts once both sinks are sending: their libraries (pg, mqtt.js) load on a
      // sink's first send, a one-time cost of start-up, not of catching up
      for (;;) {
        const sinks = JSON.parse((await request(`${busy.url}/status`)).body).forward;
        if (sinks.every((s) => s.last_success !== null)) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const res = await load(busy.url, { path: '/event', connections: 16, bodies });
      const lag = JSON.parse((await request(`${busy.url}/status`)).body).forward.map((s) => s.lag_events);
      runs.withSinks.push(res.rps);
      log(`  forward ingest round ${r + 1}: ${runs.without.at(-1).toFixed(0)} req/s without sinks, ${res.rps.toFixed(0)} with two catching up (lag after: ${lag.join(', ')})`);
    } finally {
      await busy.stop();
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { without: median(runs.without), withSinks: median(runs.withSinks), ratio: median(runs.withSinks.map((x, i) => x / runs.without[i])) };
}

// A daemon's first start on a backlog indexes its history in the background (saved for the
// next start): done once here, by a query that reads every file's index, before any round.
async function warmHistory(siteDir, pin) {
  const d = await startDaemon({ siteDir, pin });
  try {
    const res = await request(`${d.url}/history?type=bench-warm&from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z&limit=1`);
    if (res.status !== 200) throw new Error(`warming the history answered ${res.status}: ${res.body}`);
  } finally {
    await d.stop();
  }
}

async function startPeer() {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(HERE, 'ndjson-peer.mjs'), String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  return { url: `http://127.0.0.1:${port}/ingest`, stop: () => new Promise((resolve) => { child.once('exit', resolve); child.kill('SIGTERM'); }) };
}
