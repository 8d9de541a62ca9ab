import fs from 'node:fs';
import path from 'node:path';

// A generated observing night with known intervals (site day 20260317, America/New_York:
// 2026-03-17T16:00Z to 2026-03-18T16:00Z): weather every minute but for a 30-minute silence,
// safety verdicts, POCS states, a type stale twice, two alarm transitions, and run 001 from
// 23:00Z to 05:00Z. Minutes `t` count from 16:00Z.

/** The night's start (t = 0). */
export const NIGHT_FROM_MS = Date.parse('2026-03-17T16:00:00.000Z');
/** Minutes with no weather reading (the silence: 02:01Z-02:29Z, a gap from 02:00Z to 02:30Z). */
const SILENT = (t: number) => t > 600 && t < 630;
/** The run's minutes: [RUN_FROM, RUN_TO). */
export const RUN_FROM = 420;
export const RUN_TO = 780;

/** One event of the night: minute, type, data as JSON text. */
export interface NightEvent {
  t: number;
  type: string;
  data: string;
}

/** The temperature at minute t, as spelled (the min and max are spelled oddly on purpose). */
export function temperature(t: number): string {
  if (t === 100) return '-12.50';
  if (t === 200) return '30.0';
  return String(((t % 20) - 5) + 0.25);
}

/** Every event of the night in record order. */
export function nightEvents(): NightEvent[] {
  const others = new Map<number, [string, string][]>([
    [0, [['meridian.safety', '{"safe":false,"reasons":["daylight"],"since":"2026-03-17T16:00:00.000Z"}'], ['state', '{"source":"sleeping","dest":"sleeping"}']]],
    [240, [['meridian.stale', '{"type":"power","age_s":90}']]],
    [250, [['meridian.fresh', '{"type":"power","age_s":0}']]],
    [300, [['meridian.alarm', '{"id":"dome","from":"normal","to":"unack","severity":"critical"}']]],
    [310, [['meridian.alarm', '{"id":"dome","from":"unack","to":"acked","severity":"critical","by":"ops"}']]],
    [420, [['meridian.safety', '{"safe":true,"reasons":[]}']]],
    [425, [['state', '{"source":"sleeping","dest":"ready"}']]],
    [430, [['state', '{"source":"ready","dest":"scheduling"}']]],
    [431, [['state', '{"source":"scheduling","dest":"observing"}']]],
    [720, [['meridian.safety', '{"safe":false,"reasons":["rain","wind"]}'], ['state', '{"source":"observing","dest":"parking"}']]],
    [725, [['state', '{"source":"parking","dest":"parked"}']]],
    [780, [['meridian.safety', '{"safe":true,"reasons":[]}']]],
    [1380, [['meridian.stale', '{"type":"camera","age_s":600}']]],
  ]);
  const events: NightEvent[] = [];
  for (let t = 0; t < 1440; t++) {
    if (!SILENT(t)) events.push({ t, type: 'weather', data: `{"temp_c":${temperature(t)},"humidity":${40 + (t % 10)},"sky":"clear"}` });
    for (const [type, data] of others.get(t) ?? []) events.push({ t, type, data });
  }
  return events;
}

/** The ts of minute t. */
export function tsOf(t: number): string {
  return new Date(NIGHT_FROM_MS + t * 60_000).toISOString();
}

/**
 * Write the night as a daemon records it, into `siteDir` before a daemon starts on it: the site
 * day file (seqs 1.. before and after the run) and run 001's file (its own seqs, `meta.run_id`).
 * Written, not posted: the `meridian.*` events are the daemon's own (callers cannot post them),
 * and the daemon finds the run again from its file (no `.meridian/` yet).
 */
export function recordNight(siteDir: string): void {
  const line = (seq: number, e: NightEvent, meta: string) => `{"seq":${seq},"ts":"${tsOf(e.t)}","type":${JSON.stringify(e.type)},"data":${e.data},"meta":${meta}}\n`;
  const events = nightEvents();
  const site = events.filter((e) => e.t < RUN_FROM || e.t >= RUN_TO);
  const run = events.filter((e) => e.t >= RUN_FROM && e.t < RUN_TO);
  fs.writeFileSync(path.join(siteDir, 'site_20260317.ndjson'), site.map((e, i) => line(i + 1, e, '{}')).join(''));
  fs.mkdirSync(path.join(siteDir, '001'));
  fs.writeFileSync(path.join(siteDir, '001', 'telemetry.ndjson'), run.map((e, i) => line(i + 1, e, '{"run_id":"001"}')).join(''));
}
