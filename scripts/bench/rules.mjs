import fs from 'node:fs';
import path from 'node:path';
import { eventBodies, POST_TYPES } from './payload.mjs';
import { request, startDaemon } from './servers.mjs';
import { median, spreadPct, summarise } from './stats.mjs';

// The cost of the safety verdict and the alarms on ingest (issue 24: with 50 rules >= 0.9x of
// without): two daemons, one with a [safety] section of 50 rules over the posted types (each a
// comparison and a dew-point depression; every type required) and 50 [[alarm]] rules of the same
// conditions, one without, the same POST /event load at 16 connections on each in turn, rounds
// interleaved.

const RULES = 50;

/** The config file: `count` rules spread over the POST rounds' types (weather-00 ... weather-19). */
export function rulesConfig(count = RULES) {
  const types = Array.from({ length: POST_TYPES }, (_, i) => `weather-${String(i).padStart(2, '0')}`);
  const rules = Array.from({ length: count }, (_, i) => {
    const t = types[i % types.length];
    return `[[safety.rule]]\nname = "rule-${i}"\n` +
      `when = "${t}.data.wind_gust_ms > ${20 + i / 10} or ${t}.data.temperature_c - dewpoint(${t}.data.temperature_c, ${t}.data.humidity_pct) < 1"\n` +
      `clear = "${t}.data.wind_gust_ms < 15 and ${t}.data.temperature_c - dewpoint(${t}.data.temperature_c, ${t}.data.humidity_pct) > 2"\n`;
  });
  const alarms = Array.from({ length: count }, (_, i) => {
    const t = types[i % types.length];
    return `[[alarm]]\nid = "alarm-${i}"\nseverity = "${['warning', 'serious', 'critical'][i % 3]}"\n` +
      `when = "${t}.data.wind_gust_ms > ${20 + i / 10} or ${t}.data.temperature_c - dewpoint(${t}.data.temperature_c, ${t}.data.humidity_pct) < 1"\n` +
      `clear = "${t}.data.wind_gust_ms < 15 and ${t}.data.temperature_c - dewpoint(${t}.data.temperature_c, ${t}.data.humidity_pct) > 2"\n`;
  });
  return `[safety]\nrequired = ${JSON.stringify(types)}\n${rules.join('')}${alarms.join('')}`;
}

/** Rounds of POST /event c16 against a daemon with 50 rules and one without; returns the figures. */
export async function rulesBench({ tmp, rounds, seconds, pin, load, log, problems }) {
  const config = path.join(tmp, 'rules.toml');
  fs.writeFileSync(config, rulesConfig());
  const daemons = {
    without: await startDaemon({ siteDir: path.join(tmp, 'site-no-rules'), pin }),
    with: await startDaemon({ siteDir: path.join(tmp, 'site-rules'), pin, args: ['--config', config] }),
  };
  try {
    const bodies = eventBodies();
    const runs = { without: [], with: [] };
    for (let r = 0; r < rounds; r++) {
      for (const who of r % 2 ? ['with', 'without'] : ['without', 'with']) {
        const res = await load(daemons[who].url, { path: '/event', connections: 16, bodies });
        runs[who].push(res);
        if (res.non2xx || res.errors) problems.push(`rules ${who} round ${r + 1}: ${res.non2xx} non-2xx, ${res.errors} errors`);
        log(`  POST /event c16 ${who.padEnd(7)} 50+50 rules round ${r + 1}: ${res.rps.toFixed(0)} req/s p50 ${res.p50.toFixed(2)} ms p99 ${res.p99.toFixed(2)} ms`);
      }
    }
    // the verdict was judged all along: configured, and safe (the bench's weather is calm and dry)
    const verdict = JSON.parse((await request(`${daemons.with.url}/safety`)).body);
    if (!verdict.configured || !verdict.safe) problems.push(`rules: the verdict is ${JSON.stringify(verdict.reasons)} (configured ${verdict.configured})`);
    const { alarms } = JSON.parse((await request(`${daemons.with.url}/alarms`)).body);
    if (alarms.length !== RULES || alarms.some((a) => a.state !== 'normal')) problems.push(`rules: the alarms are not ${RULES} normal ones: ${JSON.stringify(alarms.slice(0, 3))}`);
    const ratios = runs.with.map((w, i) => w.rps / runs.without[i].rps);
    return { rules: RULES, without: summarise(runs.without), with: summarise(runs.with), ratio: median(ratios), ratioSpreadPct: spreadPct(ratios) };
  } finally {
    for (const d of Object.values(daemons)) await d.stop();
  }
}

/** The report line. */
export function rulesReport(f, met) {
  return `POST /event c16 with ${f.rules} safety rules and ${f.rules} alarms: ${f.with.rps.toFixed(0)} req/s vs ${f.without.rps.toFixed(0)} without (medians); rounds paired: ${f.ratio.toFixed(2)}x ` +
    `(target >= 0.9x: ${met(f.ratio >= 0.9)})  noise ±${(f.ratioSpreadPct / 2).toFixed(0)}%`;
}
