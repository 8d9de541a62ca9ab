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

/** The config of `count` safety rules alone (no [[alarm]]). */
export function safetyRulesConfig(count = RULES) {
  const full = rulesConfig(count);
  return full.slice(0, full.indexOf('[[alarm]]'));
}

/** The daemon's CPU time (user + system) in microseconds, from /proc (NaN off Linux). */
function cpuMicros(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / 100);
  } catch {
    return NaN;
  }
}

/**
 * Rounds of POST /event c16 against a daemon without rules, one with 50 safety rules (the issue's
 * figure) and one with 50 safety rules and 50 alarms, rounds interleaved; each round's
 * throughput and the daemon's CPU time per request (which other work on the machine moves
 * less than req/s).
 */
export async function rulesBench({ tmp, rounds, seconds, pin, load, log, problems }) {
  const configs = { rules: safetyRulesConfig(), both: rulesConfig() };
  const daemons = { without: await startDaemon({ siteDir: path.join(tmp, 'site-no-rules'), pin }) };
  for (const [who, text] of Object.entries(configs)) {
    const file = path.join(tmp, `${who}.toml`);
    fs.writeFileSync(file, text);
    daemons[who] = await startDaemon({ siteDir: path.join(tmp, `site-${who}`), pin, args: ['--config', file] });
  }
  const names = Object.keys(daemons);
  const label = { without: 'without', rules: '50 rules', both: '50+50' };
  try {
    const bodies = eventBodies();
    const runs = Object.fromEntries(names.map((k) => [k, []]));
    const cpu = Object.fromEntries(names.map((k) => [k, []]));
    for (let r = 0; r < rounds; r++) {
      for (let j = 0; j < names.length; j++) {
        const who = names[(j + r) % names.length];
        const before = cpuMicros(daemons[who].pid);
        const res = await load(daemons[who].url, { path: '/event', connections: 16, bodies });
        cpu[who].push((cpuMicros(daemons[who].pid) - before) / ((res.ok ?? res.requests) || NaN));
        runs[who].push(res);
        if (res.non2xx || res.errors) problems.push(`rules ${who} round ${r + 1}: ${res.non2xx} non-2xx, ${res.errors} errors`);
        log(`  POST /event c16 ${label[who].padEnd(8)} round ${r + 1}: ${res.rps.toFixed(0)} req/s p50 ${res.p50.toFixed(2)} ms p99 ${res.p99.toFixed(2)} ms, daemon CPU ${cpu[who].at(-1).toFixed(1)} us/request`);
        // the verdict was judged all along: configured, and safe right after the load (the bench's weather is calm and
        // dry; later, the other daemons' rounds take longer than the types' learned limits and they are stale, as they must be)
        if (who === 'without') continue;
        const verdict = JSON.parse((await request(`${daemons[who].url}/safety`)).body);
        if (!verdict.configured || !verdict.safe) problems.push(`rules ${who} round ${r + 1}: the verdict is ${JSON.stringify(verdict.reasons.slice(0, 3))} (configured ${verdict.configured})`);
      }
    }
    const { alarms } = JSON.parse((await request(`${daemons.both.url}/alarms`)).body);
    if (alarms.length !== RULES || alarms.some((a) => a.state !== 'normal')) problems.push(`rules: the alarms are not ${RULES} normal ones: ${JSON.stringify(alarms.slice(0, 3))}`);
    const figure = (who) => {
      const ratios = runs[who].map((w, i) => w.rps / runs.without[i].rps);
      const cpuRatios = cpu[who].map((c, i) => cpu.without[i] / c);
      return { with: summarise(runs[who]), ratio: median(ratios), ratioSpreadPct: spreadPct(ratios),
        cpuUs: median(cpu[who]), cpuRatio: median(cpuRatios), cpuSpreadPct: spreadPct(cpuRatios), cpuRuns: cpu[who] };
    };
    return { rules: RULES, without: summarise(runs.without), withoutCpuUs: median(cpu.without), withoutCpuRuns: cpu.without, safety: figure('rules'), both: figure('both') };
  } finally {
    for (const d of Object.values(daemons)) await d.stop();
  }
}

/** The report lines: 50 safety rules (the target), and 50 safety rules with 50 alarms. */
export function rulesReport(f, met) {
  const line = (name, g, target) => `POST /event c16 with ${name}: ${g.with.rps.toFixed(0)} req/s vs ${f.without.rps.toFixed(0)} without (medians); rounds paired: ${g.ratio.toFixed(2)}x ` +
    `(noise ±${(g.ratioSpreadPct / 2).toFixed(0)}%); daemon CPU ${g.cpuUs.toFixed(1)} vs ${f.withoutCpuUs.toFixed(1)} us/request: ${g.cpuRatio.toFixed(2)}x (noise ±${(g.cpuSpreadPct / 2).toFixed(0)}%)` +
    (target ? ` (target >= 0.9x, both ways: ${met(g.ratio >= 0.9 && g.cpuRatio >= 0.9)})` : ' (no target: the stricter load)');
  // an older results file has one figure
  if (!f.safety) return `POST /event c16 with ${f.rules} safety rules and ${f.rules} alarms: ${f.with.rps.toFixed(0)} req/s vs ${f.without.rps.toFixed(0)} without; rounds paired: ${f.ratio.toFixed(2)}x`;
  return `${line(`${f.rules} safety rules`, f.safety, true)}\n${line(`${f.rules} safety rules and ${f.rules} alarms`, f.both, false)}`;
}
