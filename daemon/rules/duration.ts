import { ConfigError } from '../../lib/errors.js';
import { UNIT_MS, unitMs } from '../../lib/time-units.js';

// Spans of time in the config file (`safe_for`, `for`, `escalate_after`): "90s", "15m", "1h",
// "1h30m", "250ms", "2d", or a number of seconds. Bounded, so no timer overflows (Node fires a
// timer of 2^31 ms or more after 1 ms).

/** The longest span a setting takes: 7 days (docs/safety.md). */
export const MAX_DURATION_MS = 7 * UNIT_MS.d;

const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** A config value as a span in ms; `where` names the key for the ConfigError (`the config file: safety: safe_for`). */
export function parseDuration(value: unknown, where: string): number {
  const ms = durationMs(value);
  if (ms === undefined || ms > MAX_DURATION_MS) {
    throw new ConfigError(where, 'a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, from 0 to 7 days',
      typeof value === 'bigint' ? Number(value) : value);
  }
  return ms;
}

function durationMs(value: unknown): number | undefined {
  if (typeof value === 'bigint') return value >= 0n && value <= BigInt(MAX_DURATION_MS / 1000) ? Number(value) * 1000 : undefined;
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!WHOLE.test(text)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(PART)) ms += Number(amount) * unitMs(unit!);
  return Math.round(ms);
}

/** A span as the verdict's reasons write it: `3m12s`, `15m`, `1h`, `0s`, `2.5s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.floor(ms / 100) / 10}s`;
  const parts: string[] = [];
  let rest = Math.floor(ms / 1000);
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] / 1000;
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n}${unit}`);
  }
  return parts.join('');
}
