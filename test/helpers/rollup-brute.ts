import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';

// Rollups recomputed by brute force from the readings a test posted, to hold the daemon's
// tiers against: every bucket of every field from first principles, with whole-number sums
// (values are cents, times ms) so that the expected means are exact.

/** One posted reading of one field: its time (ms), value in cents, spelling, and how long it stays fresh (ms). */
export interface BruteReading {
  at: number;
  cents: number;
  text: string;
  holdMs: number;
}

/** A bucket's expected summary of one field. */
export interface BruteField {
  first: string;
  last: string;
  min: string;
  max: string;
  count: number;
  mean: number;
  twmean: number | null;
  gap_s: number;
}

/** A tier's bucket [start, end) of the instant `at`, computed without the daemon's code. */
export function bruteBucket(tier: string, at: number, zone: string): [number, number] {
  const length = ({ '1m': 60_000, '15m': 900_000, '1h': 3_600_000 } as Record<string, number>)[tier];
  if (length !== undefined) return [at - (((at % length) + length) % length), at - (((at % length) + length) % length) + length];
  const local = DateTime.fromMillis(at, { zone });
  const date = local.hour < 12 ? local.minus({ days: 1 }) : local;
  const start = DateTime.fromObject({ year: date.year, month: date.month, day: date.day, hour: 12 }, { zone });
  return [start.toMillis(), start.plus({ days: 1 }).toMillis()];
}

/** The expected buckets of one field (readings in time order) in `tier`: start ms -> [end, summary]. */
export function bruteField(readings: readonly BruteReading[], tier: string, zone: string): Map<number, [number, BruteField]> {
  const groups = new Map<number, { end: number; items: number[] }>();
  readings.forEach((r, i) => {
    const [start, end] = bruteBucket(tier, r.at, zone);
    const group = groups.get(start) ?? { end, items: [] };
    group.items.push(i);
    groups.set(start, group);
  });
  const out = new Map<number, [number, BruteField]>();
  for (const [start, { end, items }] of groups) {
    const mine = items.map((i) => readings[i]!);
    let sum = 0n;
    let min = mine[0]!;
    let max = mine[0]!;
    for (const r of mine) {
      sum += BigInt(r.cents);
      if (r.cents < min.cents) min = r;
      if (r.cents > max.cents) max = r;
    }
    // each reading holds its value from its time until the next reading or its max age
    let tw = 0n;
    let covered = 0;
    const carried = items[0]! > 0 ? [items[0]! - 1] : [];
    for (const i of [...carried, ...items]) {
      const r = readings[i]!;
      const next = readings[i + 1]?.at ?? Infinity;
      const from = Math.max(start, r.at);
      const to = Math.min(end, next, r.at + r.holdMs);
      if (to > from) {
        tw += BigInt(r.cents) * BigInt(to - from);
        covered += to - from;
      }
    }
    out.set(start, [end, {
      first: mine[0]!.text, last: mine.at(-1)!.text, min: min.text, max: max.text, count: mine.length,
      mean: Number(sum) / mine.length / 100, twmean: covered > 0 ? Number(tw) / covered / 100 : null, gap_s: (end - start - covered) / 1000,
    }]);
  }
  return out;
}

/** Every tier file of the site directory `dir`, by `<tier>/<name>`, as text (to hold rebuilds byte for byte). */
export function tierFiles(dir: string): Record<string, string> {
  const root = path.join(dir, '.meridian', 'rollups');
  const out: Record<string, string> = {};
  for (const tier of ['1m', '15m', '1h', 'night']) {
    for (const name of fs.readdirSync(path.join(root, tier)).sort()) out[`${tier}/${name}`] = fs.readFileSync(path.join(root, tier, name), 'utf8');
  }
  return out;
}
