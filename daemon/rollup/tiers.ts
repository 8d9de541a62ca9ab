import { DateTime } from 'luxon';

// The rollup tiers: buckets of 1 minute, 15 minutes, 1 hour, and the site day (`night`: local
// noon to local noon, the day key of lib/day-key.ts, DST-safe through luxon).

/** A tier's name as the wire spells it (`step=`). */
export type TierName = '1m' | '15m' | '1h' | 'night';

/** Every tier, finest first. */
export const TIERS: readonly TierName[] = ['1m', '15m', '1h', 'night'];

/** A tier's nominal bucket length in ms (a night is 24 h but for DST nights: 23 h or 25 h). */
export const TIER_MS: Readonly<Record<TierName, number>> = { '1m': 60_000, '15m': 900_000, '1h': 3_600_000, night: 86_400_000 };

/** One bucket: [start, end) in ms since the epoch. */
export interface Span {
  start: number;
  end: number;
}

/** The bucket of `tier` that holds the instant `ms` (`zone`: the site's zone, for nights). */
export function bucketOf(tier: TierName, ms: number, zone: string): Span {
  if (tier !== 'night') {
    const length = TIER_MS[tier];
    const start = Math.floor(ms / length) * length;
    return { start, end: start + length };
  }
  const dt = DateTime.fromMillis(ms, { zone });
  const day = dt.hour < 12 ? dt.minus({ days: 1 }) : dt;
  const noon = day.set({ hour: 12, minute: 0, second: 0, millisecond: 0 });
  return { start: noon.toMillis(), end: noon.plus({ days: 1 }).toMillis() };
}

/** Whether `text` names a tier. */
export function isTier(text: string): text is TierName {
  return (TIERS as readonly string[]).includes(text);
}
