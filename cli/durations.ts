import { ConfigError } from '../lib/errors.js';
import { UNIT_MS, unitMs } from '../lib/time-units.js';

// Spans of time given on the command line (`--since 2h`, `--from -3d`): a number and a unit,
// bounded so that the time they name is one a clock can hold (99999999999d is years beyond
// any date, and 0s names nothing).

/** A duration's text: a number and s, m, h, d or w, optionally negative (relative to now). */
export const DURATION = /^-?(\d+(?:\.\d+)?)(s|m|h|d|w)$/;

/** The longest span: 100 years of days (telemetry older than that is not on any disk). */
export const MAX_SPAN_DAYS = 36_500;

/** The duration `text` (a DURATION) in ms, checked: more than 0 and at most `maxMs` (MAX_SPAN_DAYS); throws ConfigError naming `option` and its true range. */
export function spanMs(option: string, text: string, maxMs = MAX_SPAN_DAYS * UNIT_MS.d): number {
  const match = DURATION.exec(text);
  if (!match) throw new ConfigError(option, 'a duration such as 30m, 2h, 1d (s, m, h, d, w)', text);
  const ms = Number(match[1]) * unitMs(match[2]!);
  if (!(ms > 0) || ms > maxMs) throw new ConfigError(option, `a duration from 1s to ${spanText(maxMs)}`, text);
  return ms;
}

/** A bound as the messages write it: the largest whole unit (`7d`, `36500d`, `12h`). */
export function spanText(ms: number): string {
  for (const unit of ['d', 'h', 'm'] as const) if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${ms / 1000}s`;
}
