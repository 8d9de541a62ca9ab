import type { NightField, NightReport } from '../../lib/night-report.js';
import { formatTs } from '../../lib/time.js';
import type { DamagedFile } from '../history/history.js';
import type { NightFold } from './night-fold.js';
import { UNKNOWN } from './state-clock.js';
import { meanOf, type FieldStats } from './weather-stats.js';

// A finished fold as the report's answer: seconds (to the ms), lists in a stable order, and
// the JSON text in which each weather min and max is the number as it was recorded (Exact).

/** What the fold does not know about its report. */
export interface ReportMeta {
  night: string | null;
  runId: string | null;
  zone: string;
  complete: boolean;
  damaged: DamagedFile[];
  startedAt: string;
}

/** A computed report, and its JSON text (the answer's bytes). */
export interface ComputedReport {
  report: NightReport;
  text: string;
}

const seconds = (ms: number) => Math.round(ms) / 1000;
const byType = <T extends { type: string }>(a: T, b: T) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);

/** The report of a finished fold. */
export function reportOf(fold: NightFold, meta: ReportMeta): ComputedReport {
  const { fromMs, toMs, untilMs } = fold.span;
  const spelled = new Map<NightField, FieldStats>();
  const fields: Record<string, NightField> = {};
  for (const key of [...fold.weather.fields.keys()].sort()) {
    const stats = fold.weather.fields.get(key)!;
    if (stats.count === 0) continue; // only numbers beyond a double (1e400) were seen
    const field: NightField = {
      count: stats.count, min: stats.min.value, mean: meanOf(stats, stats.sum, stats.count), max: stats.max.value,
      series: [...stats.sliceCounts].flatMap((n, slice) => (n === 0 ? [] : [[formatTs(fold.weather.sliceStart(slice)), meanOf(stats, stats.sliceSums[slice]!, n)] as [string, number]])),
    };
    spelled.set(field, stats);
    fields[key] = field;
  }
  const started = meta.startedAt >= formatTs(fromMs) && meta.startedAt < formatTs(untilMs) ? meta.startedAt : null;
  const report: NightReport = {
    night: meta.night, run_id: meta.runId, zone: meta.zone, from: formatTs(fromMs), to: formatTs(toMs),
    complete: meta.complete, until: formatTs(untilMs), seconds: seconds(untilMs - fromMs),
    events: fold.events, first_event: fold.first ?? null, last_event: fold.last ?? null,
    runs: [...fold.runs].map(([run_id, r]) => ({ run_id, ...r })),
    safety: safetyOf(fold),
    stale: [...fold.stale].map(([type, s]) => ({ type, seconds: seconds(s.clock.totalsAt(untilMs).ms.get('stale') ?? 0), times: s.times }))
      .filter((s) => s.seconds > 0 || s.times > 0).sort(byType),
    alarms: { count: fold.alarmCount, listed: fold.alarms },
    gaps: {
      threshold_s: fold.span.gapMs / 1000,
      seconds: seconds(fold.gaps.reduce((n, g) => n + (g.toMs - g.fromMs), 0)),
      list: fold.gaps.map((g) => ({ from: formatTs(g.fromMs), to: formatTs(g.toMs), seconds: seconds(g.toMs - g.fromMs) })),
      daemon_started: started,
    },
    counts: Object.fromEntries([...fold.counts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))),
    weather: { type: 'weather', fields },
    states: statesOf(fold),
    damaged: meta.damaged.map(({ file, reason }) => ({ file, reason })),
  };
  return { report, text: reportText(report, spelled) };
}

/** Seconds safe, unsafe (and per reason) and unknown. */
function safetyOf(fold: NightFold): NightReport['safety'] {
  const { ms } = fold.safety.totalsAt(fold.span.untilMs);
  let safe = 0;
  let unsafe = 0;
  let unknown = 0;
  const reasons = new Map<string, number>();
  for (const [key, t] of ms) {
    if (key === 'safe') safe += t;
    else if (key === UNKNOWN) unknown += t;
    else {
      unsafe += t;
      for (const reason of JSON.parse(key.slice('unsafe'.length)) as string[]) reasons.set(reason, (reasons.get(reason) ?? 0) + t);
    }
  }
  const recorded = fold.safetyChanges.length > 0 || ms.size > 1 || !ms.has(UNKNOWN);
  const start = fold.start.safety;
  const atStart = start === UNKNOWN ? null : { safe: start === 'safe', reasons: start === 'safe' ? [] : JSON.parse(start.slice('unsafe'.length)) as string[] };
  return {
    recorded, at_start: atStart, safe_s: seconds(safe), unsafe_s: seconds(unsafe), unknown_s: seconds(unknown),
    reasons: [...reasons].map(([reason, t]) => ({ reason, seconds: seconds(t) }))
      .sort((a, b) => b.seconds - a.seconds || (a.reason < b.reason ? -1 : 1)),
    changes: fold.safetyChanges,
    change_count: fold.safetyChangeCount,
  };
}

/** Seconds per POCS state (no known state left out), most first. */
function statesOf(fold: NightFold): NightReport['states'] {
  const { ms, entered } = fold.states.totalsAt(fold.span.untilMs);
  return [...ms].filter(([state]) => state !== UNKNOWN)
    .map(([state, t]) => ({ state, seconds: seconds(t), entered: entered.get(state) ?? 0 }))
    .sort((a, b) => b.seconds - a.seconds || (a.state < b.state ? -1 : 1));
}

/** The report's JSON, each weather field's min and max spelled as recorded. */
function reportText(report: NightReport, spelled: Map<NightField, FieldStats>): string {
  // a mark no recorded string of this report can be mistaken for: one its plain JSON does not hold
  const plain = JSON.stringify(report);
  let nonce = 0;
  while (plain.includes(`\\u0000${nonce}:`)) nonce++;
  const marks: string[] = [];
  const text = JSON.stringify(report, function (this: unknown, key, value: unknown) {
    const stats = (key === 'min' || key === 'max') ? spelled.get(this as NightField) : undefined;
    if (!stats) return value;
    marks.push(stats[key as 'min' | 'max'].text);
    return `\u0000${nonce}:${marks.length - 1}`;
  });
  return text.replace(new RegExp(`"\\\\u0000${nonce}:(\\d+)"`, 'g'), (_m, i: string) => marks[Number(i)]!);
}
