import type { WeatherStats } from './weather-stats.js';

// The night's weather min/mean/max read from the rollups' 1-minute tier instead of from every
// reading (docs/reports.md "Speed"): a night holds hundreds of thousands of weather readings,
// its tier 1,440 buckets. Each bucket holds a field's count, mean, and min and max as spelled;
// folded bucket by bucket in time order they give the same min, max and count as the readings,
// and the mean up to the order of summation (within 1e-9 relative).

/** A bucket as the rollups answer it: start and end (ms), each field's answer text by its JSON-escaped name. */
export interface TierBucket {
  s: number;
  e: number;
  fields: ReadonlyMap<string, string>;
}

/** What the report asks of the rollups (daemon/rollup/rollups.ts; passed in by the HTTP room). */
export interface WeatherTiers {
  /** Whether every reading of `type` recorded so far is in the tiers, each top-level member under its name. */
  complete(type: string): boolean;
  /** A type's buckets of the 1-minute tier overlapping [from, to) (ms). */
  buckets(type: string, tier: '1m', from: number, to: number, now: number): Promise<readonly TierBucket[]>;
}

const NUM = '-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?';
const FIELD = new RegExp(`^\\{"first":${NUM},"last":${NUM},"min":(${NUM}),"max":(${NUM}),"count":(\\d+),"mean":(${NUM}),`);

/** Whether a span's weather can be read from 1-minute buckets: each bucket lies in one series slice. */
export function tiersAlign(fromMs: number, sliceMs: number): boolean {
  return fromMs % 60_000 === 0 && sliceMs % 60_000 === 0;
}

/**
 * Fold the top-level fields (`data.X`) of `buckets` into `stats`; false when a bucket cannot be
 * read as the daemon writes it, or the buckets do not hold the readings the raw files gave:
 * `minutes` counts the weather lines of each minute from `fromMs` (read from their heads only,
 * so the check costs no parse of the data). A bucket's readings are those of its field holding
 * most; they must equal its minute's lines, and no field may hold more: a bucket line lost,
 * torn, doubled or moved, or raw files not all there, sends the caller to fold the readings.
 */
export function foldTierBuckets(stats: WeatherStats, buckets: readonly TierBucket[], minutes: Uint32Array, fromMs: number): boolean {
  const held = new Uint32Array(minutes.length);
  for (const bucket of buckets) {
    const minute = (bucket.s - fromMs) / MINUTE_MS;
    if (!Number.isInteger(minute) || minute < 0 || minute >= minutes.length || held[minute] !== 0) return false;
    let most = 0;
    for (const [escaped, text] of bucket.fields) {
      if (!escaped.startsWith('data.')) continue;
      const key = JSON.parse(`"${escaped.slice(5)}"`) as string;
      // a nested field (data.wind.speed): the report reads top-level members only (a key holding `.` is never a tier field)
      if (key.includes('.')) continue;
      const m = FIELD.exec(text);
      if (!m) return false;
      const count = Number(m[3]);
      if (count > minutes[minute]!) return false;
      most = Math.max(most, count);
      stats.addBucket(key, bucket.s, { min: m[1]!, max: m[2]!, count, mean: Number(m[4]) });
    }
    held[minute] = most;
  }
  return held.every((n, i) => n === minutes[i]);
}

const MINUTE_MS = 60_000;
