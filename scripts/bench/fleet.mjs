// npm run bench -- --only fleet: issue 27's "a unit offline for a day reconnects". Units
// (real daemons, each with its --unit-id) post at a steady rate to one PostgreSQL 15 (started
// through test/helpers/postgres.ts); the database's ingest of their events is counted over a
// window without the returning unit, then over the same window from the moment a unit with a
// day of backlog in its files (one event a second: 86,400) starts. Figures: how long until
// that unit's current rows equal its GET /current, the others' ingest with it against without
// it (goal: within 20%, >= 0.8x), its backlog's drain rate, and the load average.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';
import { request, startDaemon } from './servers.mjs';
import { writeHistory } from './startup.mjs';

const BACK = 'back-from-a-day';
const SINK = 'batch_records = 500\nlinger_ms = 100\nretry_min_ms = 250\nretry_max_ms = 2000';

/** Run the fleet phase; resolves its figures. */
export async function fleetBench({ tmp, units, rate, backlog, windowS, log }) {
  const { startPostgres } = await tsImport('../../test/helpers/postgres.ts', import.meta.url);
  const db = await startPostgres();
  const client = new pg.Client({ connectionString: db.url });
  const stops = [async () => db.remove(), async () => client.end()];
  try {
    await client.connect();
    const config = path.join(tmp, 'fleet.toml');
    fs.writeFileSync(config, `[[sink]]\nname = "db"\nurl = "${db.url}"\ntable = "fleet"\n${SINK}\n`);
    const start = async (id) => {
      const d = await startDaemon({ siteDir: path.join(tmp, `fleet-${id}`), args: ['--unit-id', id, '--config', config, '--max-age', '*=none'] });
      stops.push(() => d.stop());
      return d;
    };
    const daemons = [];
    for (let u = 1; u <= units; u++) daemons.push(await start(`unit-${String(u).padStart(2, '0')}`));
    const posting = steadyPosts(daemons, rate);
    stops.push(() => posting.stop());
    // each unit seen caught up once (at 20 events/s a sink's lag is rarely 0 on every unit at one instant)
    for (const d of daemons) await until('a unit caught up', async () => (await sinkLag(d)) === 0, 60_000);
    const others = async () => Number((await client.query(`SELECT count(*) AS n FROM fleet WHERE unit <> $1`, [BACK])).rows[0].n);
    const without = await rateOver(others, windowS);
    writeHistory(path.join(tmp, `fleet-${BACK}`), backlog, 1);
    const started = performance.now();
    const back = await start(BACK);
    const fresh = (async () => { await until('its current rows', () => agrees(client, back), 60_000); return performance.now() - started; })();
    const withIt = await rateOver(others, windowS);
    const freshMs = await fresh;
    await until('its backlog drained', async () => (await sinkLag(back)) === 0, 600_000);
    const drainS = (performance.now() - started) / 1000;
    const figures = { units, rate, backlog, windowS, freshMs, withoutPerS: without, withPerS: withIt, ratio: withIt / without,
      drainPerS: backlog / drainS, load: os.loadavg().map((l) => Number(l.toFixed(2))) };
    log(`  fleet: fresh after ${freshMs.toFixed(0)} ms, others ${withIt.toFixed(1)}/s with it vs ${without.toFixed(1)}/s without, drained ${figures.drainPerS.toFixed(0)}/s`);
    return figures;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

/** What the bench prints for the fleet phase. */
export function fleetReport(f, met) {
  return [`fleet: ${f.units} units at ${f.rate} events/s each; a unit back with ${f.backlog} events in its files: its current rows in PostgreSQL after ${f.freshMs.toFixed(0)} ms ` +
    `(target <= 10000 ms: ${met(f.freshMs <= 10_000)}); the others' ingest ${f.withPerS.toFixed(1)} events/s with it vs ${f.withoutPerS.toFixed(1)} without = ${f.ratio.toFixed(2)}x ` +
    `(target >= 0.8x: ${met(f.ratio >= 0.8)}); its backlog drained at ${f.drainPerS.toFixed(0)} events/s; load ${f.load.join(' ')}`];
}

// each daemon posts `rate` events a second (four types in turn) until stopped
function steadyPosts(daemons, rate) {
  let running = true;
  const loops = daemons.map(async (d, u) => {
    const begun = performance.now();
    for (let n = 0; running; n++) {
      await request(`${d.url}/event`, { method: 'POST', body: JSON.stringify({ type: ['weather', 'dome', 'mount', 'power'][n % 4], data: { u, n } }) });
      const due = begun + ((n + 1) * 1000) / rate;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
  });
  return { stop: async () => { running = false; await Promise.all(loops); } };
}

// events a second the count grew by over a window
async function rateOver(count, windowS) {
  const [n0, t0] = [await count(), performance.now()];
  await new Promise((resolve) => setTimeout(resolve, windowS * 1000));
  const [n1, t1] = [await count(), performance.now()];
  return (n1 - n0) / ((t1 - t0) / 1000);
}

async function sinkLag(d) {
  const status = JSON.parse((await request(`${d.url}/status`)).body);
  return status.forward.find((s) => s.name === 'db').lag_events;
}

// the unit's GET /current and its current rows hold the same readings
async function agrees(client, d) {
  const view = JSON.parse((await request(`${d.url}/current`)).body).current;
  const rows = (await client.query('SELECT type, line FROM fleet_current WHERE unit = $1', [BACK])).rows;
  const central = Object.fromEntries(rows.map((r) => [r.type, JSON.parse(r.line)]));
  const sorted = (o) => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
  return Object.keys(view).length > 0 && sorted(view) === sorted(central);
}

async function until(what, ok, deadlineMs) {
  const deadline = performance.now() + deadlineMs;
  while (!(await ok())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
