import { MeridianError } from '../../lib/errors.js';
import { formatTs } from '../../lib/time.js';
import type { History } from '../history/history.js';
import { canonicalTs } from '../ndjson/head.js';
import type { StoreHead } from '../storage/store.js';
import { FRESH, NightFold, POCS_STATE, POCS_STATUS, pocsState, SAFETY, safetyKey, safetyOf, STALE, WEATHER, type StartState } from './night-fold.js';
import { readLines } from './night-read.js';
import { nightSpan } from './night-span.js';
import { reportOf, type ComputedReport } from './night-totals.js';
import { UNKNOWN } from './state-clock.js';
import { SERIES_SLICES } from './weather-stats.js';
import { foldTierBuckets, tiersAlign, type WeatherTiers } from './weather-tiers.js';

// The night report of a site day or a run, computed from the recorded files (docs/reports.md).

/** A silence of this long with no event at all is a gap (the daemon down, or nothing posting). */
export const GAP_S = 300;
/** How far before the night the verdicts in force at its start are looked for. */
const LOOK_BACK_MS = 24 * 3_600_000;

/** What a report is computed from. */
export interface ReportSource {
  history: History;
  head: StoreHead;
  zone: string;
  nowMs: number;
  /** The active run's id, if one is active. */
  activeRun: string | undefined;
  /** When this daemon process started (ts). */
  startedAt: string;
  /** The rollups, when kept: a complete night's weather is read from their 1-minute tier. */
  tiers?: WeatherTiers;
}

/** The report of site day `day` (YYYYMMDD). */
export async function nightReport(source: ReportSource, day: string): Promise<ComputedReport> {
  const { fromMs, toMs } = nightSpan(day, source.zone);
  const untilMs = Math.max(fromMs, Math.min(toMs, source.nowMs));
  const start = await startState(source, fromMs);
  const complete = source.nowMs >= toMs;
  // a night over, its weather all in the tiers, each 1-minute bucket in one series slice: read from the tiers
  const tiers = complete && source.tiers?.complete(WEATHER) && tiersAlign(fromMs, (toMs - fromMs) / SERIES_SLICES) ? source.tiers : undefined;
  const fold = new NightFold({ fromMs, toMs, untilMs, gapMs: GAP_S * 1000 }, start, tiers === undefined);
  const damaged = await readLines(source.history, source.head, { from: formatTs(fromMs), to: formatTs(toMs) },
    (line, head, stream) => fold.add(line, head, stream));
  fold.finish();
  const lines = fold.counts.get(WEATHER) ?? 0;
  if (tiers && lines > 0) {
    const buckets = await tiers.buckets(WEATHER, '1m', fromMs, toMs, source.nowMs);
    // asked again: the buckets are answered once every event recorded before is folded
    if (!tiers.complete(WEATHER) || !foldTierBuckets(fold.weather, buckets, fold.weatherMinutes, fromMs)) return nightReport({ ...source, tiers: undefined }, day);
  }
  return reportOf(fold, { night: day, runId: null, zone: source.zone, complete, damaged, startedAt: source.startedAt });
}

/** The report of run `runId`: from its first event to its last (to now while it is active). */
export async function runReport(source: ReportSource, runId: string): Promise<ComputedReport> {
  if (!source.head.segments.some((s) => s.stream === runId)) {
    throw new MeridianError('INVALID_QUERY', `run ${runId} is not in the timeline of this site directory (runs recorded before it existed are not either).`);
  }
  const filter = { stream: runId };
  let firstMs: number | undefined;
  let lastMs = -Infinity;
  await readLines(source.history, source.head, filter, (_line, head) => {
    const ms = Date.parse(canonicalTs(head.ts));
    firstMs ??= ms;
    if (ms > lastMs) lastMs = ms;
  });
  const active = source.activeRun === runId;
  const fromMs = firstMs ?? source.nowMs;
  const toMs = Math.max(fromMs, active ? source.nowMs : lastMs);
  const none: StartState = { safety: UNKNOWN, stale: new Set(), state: UNKNOWN };
  const fold = new NightFold({ fromMs, toMs, untilMs: toMs, gapMs: GAP_S * 1000 }, none);
  const damaged = await readLines(source.history, source.head, filter, (line, head, stream) => fold.add(line, head, stream));
  fold.finish();
  return reportOf(fold, { night: null, runId, zone: source.zone, complete: !active, damaged, startedAt: source.startedAt });
}

/** The verdicts in force when the night begins: of each, the latest by ts (the later recorded among equal ts) in the day before it. */
async function startState(source: ReportSource, fromMs: number): Promise<StartState> {
  let safety = { ts: '', value: UNKNOWN };
  let state = { ts: '', value: UNKNOWN };
  const stale = new Map<string, { ts: string; value: boolean }>();
  const types = new Set([SAFETY, STALE, FRESH, POCS_STATE, POCS_STATUS]);
  const later = (held: { ts: string } | undefined, ts: string) => held === undefined || ts >= held.ts;
  await readLines(source.history, source.head, { types, from: formatTs(fromMs - LOOK_BACK_MS), to: formatTs(fromMs) }, (line, head) => {
    let data: unknown;
    try {
      data = (JSON.parse(line) as { data?: unknown }).data;
    } catch {
      return;
    }
    const ts = canonicalTs(head.ts);
    const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
    if (head.type === SAFETY) {
      const verdict = safetyOf(d);
      if (verdict && later(safety, ts)) safety = { ts, value: safetyKey(verdict.safe, verdict.reasons) };
    } else if (head.type === POCS_STATE || head.type === POCS_STATUS) {
      const named = pocsState(data);
      if (named !== undefined && later(state, ts)) state = { ts, value: named };
    } else if (typeof d.type === 'string' && later(stale.get(d.type), ts)) stale.set(d.type, { ts, value: head.type === STALE });
  });
  return { safety: safety.value, stale: new Set([...stale].filter(([, s]) => s.value).map(([type]) => type)), state: state.value };
}
