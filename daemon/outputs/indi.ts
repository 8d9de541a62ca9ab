import type { ConditionValue } from '../conditions/read.js';
import type { VerdictState } from '../safety/verdict-event.js';

// The two bodies INDI's weather drivers read (docs/integrations.md#indi), from the verdict and
// the mapped conditions: the JSON of indi_weather_safety_proxy (GET /safety/indi) and the
// key=value lines of indi_watcher_weather (GET /safety/watcher). Fail-safe: open_ok is 1 only
// when the verdict is safe; the Watcher's `forecast` is 2 (its danger zone) unless the
// verdict is safe and every value it is given is there and fresh.

/** The Watcher's keywords (its defaults) and the property each carries, in km/h for the winds (the driver's unit). */
const WATCHER_KEYS: ReadonlyArray<[key: string, property: string, factor: number]> = [
  ['precip', 'rainrate', 1],
  ['temperature', 'temperature', 1],
  ['wind', 'windspeed', 3.6],
  ['gust', 'windgust', 3.6],
  ['clouds', 'cloudcover', 1],
  ['humidity', 'humidity', 1],
  ['pressure', 'pressure', 1],
];

/** `{"roof_status":{"open_ok":0|1,"reasons":"..."}}`: the verdict's reasons joined by "; " (empty when safe). */
export function indiProxyText(verdict: VerdictState): string {
  return JSON.stringify({ roof_status: { open_ok: verdict.safe ? 1 : 0, reasons: oneLine(verdict.reasons.join('; ')) } });
}

/**
 * The Watcher's lines, each `key=value\n` (the driver reads up to `=` and to the end of the
 * line, so no other line may appear): `forecast` 0 or 2, then each mapped value there is,
 * then `safe`, and `reasons` when unsafe.
 */
export function watcherText(verdict: VerdictState, values: readonly ConditionValue[]): string {
  const lines: string[] = [];
  const reasons = [...verdict.reasons];
  for (const [key, property, factor] of WATCHER_KEYS) {
    const v = values.find((c) => c.property === property);
    if (v === undefined) continue;
    if (v.value === null || v.stale) reasons.push(`${key}: ${v.reason ?? 'stale'}`);
    if (v.value !== null) lines.push(`${key}=${factor === 1 ? v.text : String(Number((v.value * factor).toPrecision(12)))}`);
  }
  const safe = verdict.safe && reasons.length === 0;
  lines.unshift(`forecast=${safe ? 0 : 2}`);
  lines.push(`safe=${safe ? 1 : 0}`);
  if (!safe) lines.push(`reasons=${oneLine(reasons.join('; '))}`);
  return lines.map((line) => `${line}\n`).join('');
}

/** Text on one line: line breaks and other control characters become spaces. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ');
}
