// The units of a span of time, in ms: the one table behind every parser of spans (the config
// file's `for`/`safe_for`/`escalate_after` in daemon/rules/duration.ts, the CLI's `--since`/`--for`
// in cli/durations.ts, `--retain`/`--compress-after` in lib/setting-values.ts). Each parser keeps
// its own grammar (which units, signs, compounds it takes: docs/configuration.md and cli.md); only
// the sizes are shared.

/** The length of each unit in ms: ms, s, m (minutes), h, d, w. */
export const UNIT_MS: Readonly<Record<'ms' | 's' | 'm' | 'h' | 'd' | 'w', number>> = {
  ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000,
};

/** A unit's length in ms; the unit must be one of UNIT_MS's (the parsers' patterns admit no other). */
export function unitMs(unit: string): number {
  return UNIT_MS[unit as keyof typeof UNIT_MS];
}
