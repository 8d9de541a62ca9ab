import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { request, startDaemon } from './servers.mjs';
import { median } from './stats.mjs';

// The night report over a generated night of `lines` envelopes (site day 20260317 in this
// machine's zone, as the daemon sees it): weather readings with a dozen numeric fields, mount
// and camera readings, a safety verdict every 1,000 lines, a POCS state every 5,000, a type
// stale and fresh again every 20,000. The daemon builds its rollups from the file at start-up;
// POST /rollups/rebuild waits for that build (joined, not started again), so that the report
// reads the night's weather from the 1-minute tier (docs/reports.md "Speed"). Then
// GET /reports/night/20260317 timed cold (the index of the file built on the way) and warm
// (median of three). Target: under 2 s (issue 26).

const DAY = '20260317';

/** Write the night's file; returns {file, bytes}. */
export function writeNight(siteDir, lines) {
  fs.mkdirSync(siteDir, { recursive: true });
  const from = DateTime.fromObject({ year: 2026, month: 3, day: 17, hour: 12 }).toMillis();
  const to = DateTime.fromObject({ year: 2026, month: 3, day: 18, hour: 12 }).toMillis();
  const step = (to - from) / lines;
  const file = path.join(siteDir, `site_${DAY}.ndjson`);
  const fd = fs.openSync(file, 'w');
  let bytes = 0;
  for (let seq = 1; seq <= lines;) {
    const parts = [];
    for (let k = 0; k < 10_000 && seq <= lines; k++, seq++) parts.push(nightLine(seq, new Date(from + Math.floor((seq - 1) * step)).toISOString()));
    bytes += fs.writeSync(fd, parts.join(''));
  }
  fs.closeSync(fd);
  return { file, bytes };
}

/** The envelope line (with newline) of seq `seq` at `ts`. */
function nightLine(seq, ts) {
  const head = `{"seq":${seq},"ts":"${ts}","type":`;
  if (seq % 20_000 === 0) return `${head}"meridian.fresh","data":{"type":"camera","age_s":0},"meta":{}}\n`;
  if (seq % 20_000 === 10_000) return `${head}"meridian.stale","data":{"type":"camera","age_s":120},"meta":{}}\n`;
  if (seq % 5_000 === 0) return `${head}"state","data":{"source":"x","dest":"${['observing', 'scheduling', 'parked'][seq % 3]}"},"meta":{}}\n`;
  if (seq % 1_000 === 0) return `${head}"meridian.safety","data":{"safe":${seq % 3 !== 0},"reasons":${seq % 3 !== 0 ? '[]' : '["wind"]'}},"meta":{}}\n`;
  if (seq % 10 < 6) {
    return `${head}"weather","data":{"temperature_c":${8.25 + (seq % 17) / 10},"humidity_pct":61.4,"dew_point_c":1.07,"pressure_hpa":1013.2,`
      + `"wind_speed_ms":${(seq % 90) / 10},"wind_gust_ms":7.9,"wind_dir_deg":237,"sky_temp_c":-31.5,"cloud_cover_pct":12,"rain":false,"station":"mast-north"},"meta":{}}\n`;
  }
  return `${head}"${seq % 10 < 8 ? 'mount' : 'camera'}","data":{"ra":${seq % 360},"dec":-12.5,"tracking":true},"meta":{}}\n`;
}

/** Time one report; resolves ms. */
async function timeReport(url) {
  const t0 = process.hrtime.bigint();
  const res = await request(`${url}/reports/night/${DAY}`, { fresh: true });
  if (res.status !== 200) throw new Error(`GET /reports/night/${DAY} answered ${res.status}: ${res.body}`);
  const events = JSON.parse(res.body).events;
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, events };
}

/** The phase: {lines, bytes, coldMs, warmMs}; prints one line. */
export async function nightBench({ tmp, lines, pin, log }) {
  const siteDir = path.join(tmp, 'site-night');
  const { bytes } = writeNight(siteDir, lines);
  const d = await startDaemon({ siteDir, pin });
  try {
    const t0 = performance.now();
    const built = await request(`${d.url}/rollups/rebuild`, { method: 'POST' });
    if (built.status !== 200) throw new Error(`POST /rollups/rebuild answered ${built.status}: ${built.body}`);
    const buildMs = performance.now() - t0;
    const cold = await timeReport(d.url);
    if (cold.events !== lines) throw new Error(`the report counted ${cold.events} events of ${lines}`);
    const warm = [];
    for (let i = 0; i < 3; i++) warm.push((await timeReport(d.url)).ms);
    const figures = { lines, bytes, buildMs, coldMs: cold.ms, warmMs: median(warm) };
    log(`night report over ${lines} lines (${(bytes / 2 ** 20).toFixed(0)} MiB, rollups built in ${(buildMs / 1000).toFixed(1)} s): cold ${cold.ms.toFixed(0)} ms, warm ${figures.warmMs.toFixed(0)} ms (target under 2000 ms)`);
    return figures;
  } finally {
    await d.stop();
  }
}
