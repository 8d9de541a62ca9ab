import { DateTime } from 'luxon';
import type { ConditionValue } from '../conditions/read.js';
import type { VerdictState } from '../safety/verdict-event.js';
import type { BoltwoodSpec } from './boltwood-config.js';

// The Boltwood Clarity II one-line data file's line (docs/integrations.md has the field
// table): fixed columns, local date and time, units letters, the values of [conditions],
// `Since` the age of the oldest contributing reading, VB6 Now() in days, the c w r d condition
// flags, and the roof-close and alert flags, set when the verdict is unsafe or a contributing
// input is missing, not a number or stale (fail-safe).

/** The properties the line reads; each contributes only when mapped. */
const CONTRIBUTING = ['skytemperature', 'temperature', 'windspeed', 'humidity', 'dewpoint', 'rainrate', 'skybrightness'] as const;
// days from 1899-12-30 (VB6's day 0) to 1970-01-01
const VB_EPOCH_DAYS = 25569;
const MAX_SINCE = 99999;

/** One line and why its alert is set. */
export interface BoltwoodLine {
  /** The line with its CRLF, as written. */
  readonly text: string;
  readonly alert: boolean;
  /** The `Since` field (seconds). */
  readonly since: number;
  readonly reasons: readonly string[];
}

/** The line at `nowMs` in `zone` (luxon's: an IANA name, `system`, `utc`). */
export function boltwoodLine(spec: BoltwoodSpec, verdict: VerdictState, values: readonly ConditionValue[], nowMs: number, zone: string): BoltwoodLine {
  const by = new Map(values.map((v) => [v.property, v]));
  const used = CONTRIBUTING.map((p) => by.get(p)).filter((v): v is ConditionValue => v !== undefined);
  const reasons = [...verdict.reasons];
  for (const v of used) if (v.value === null || v.stale) reasons.push(`${v.property}: ${v.reason ?? 'stale'}`);
  const ages = used.map((v) => v.age_s);
  const since = used.length === 0 || ages.includes(null) ? MAX_SINCE : Math.min(MAX_SINCE, Math.round(Math.max(...ages as number[])));
  const alert = !verdict.safe || reasons.length > verdict.reasons.length;
  const known = (p: string) => { const v = by.get(p as ConditionValue['property']); return v?.value ?? undefined; };
  const sky = known('skytemperature');
  const amb = known('temperature');
  const skyMinusAmb = sky !== undefined && amb !== undefined ? sky - amb : undefined;
  // a negative wind is no reading the file can carry (its negative values are the probe's error codes)
  const wind = (known('windspeed') ?? -1) >= 0 ? known('windspeed') : undefined;
  const rain = known('rainrate');
  const raining = rain === undefined ? 0 : rain > 0 ? 2 : 0;
  const flag = (on: boolean) => (on ? '1' : '0');
  const fields = [
    timeFields(nowMs, zone),
    spec.temperatureUnit, spec.windUnit,
    // sky minus ambient: 999. (saturated hot, i.e. cloudy) when it cannot be told
    num(skyMinusAmb === undefined ? 999 : temp(skyMinusAmb, spec, true), 6),
    num(amb === undefined ? 0 : temp(amb, spec), 6),
    // the sensor case's temperature (columns 41-47, the separator included): the ambient one
    num(amb === undefined ? 0 : temp(amb, spec), 6),
    // -3. (the wind probe's A/D is bad) when it cannot be told
    num(wind === undefined ? -3 : windIn(wind, spec), 6),
    String(Math.round(clamp(known('humidity') ?? 0, 0, 100))).padStart(3),
    num(known('dewpoint') === undefined ? 0 : temp(known('dewpoint')!, spec), 6),
    '  0', String(raining), String(raining),
    String(since).padStart(5, '0'),
    vbNow(nowMs, zone),
    level(skyMinusAmb, spec.cloudy, spec.veryCloudy), level(wind, spec.windy, spec.veryWindy),
    rain === undefined ? '0' : rain > 0 ? '3' : '1',
    level(known('skybrightness'), spec.light, spec.veryLight),
    flag(alert), flag(alert),
  ];
  return { text: `${fields.join(' ')}\r\n`, alert, since, reasons };
}

/** `yyyy-mm-dd hh:mm:ss.ss`, local. */
function timeFields(ms: number, zone: string): string {
  const dt = DateTime.fromMillis(ms, { zone });
  return `${dt.toFormat('yyyy-MM-dd HH:mm:ss')}.${String(Math.floor(dt.millisecond / 10)).padStart(2, '0')}`;
}

/** VB6 Now(): local days since 1899-12-30, `%012.5f`. */
function vbNow(ms: number, zone: string): string {
  const local = ms + DateTime.fromMillis(ms, { zone }).offset * 60_000;
  return (local / 86_400_000 + VB_EPOCH_DAYS).toFixed(5).padStart(12, '0');
}

/** 1 below `low`, 2 from `low`, 3 from `high`; 0 (unknown) without a value. */
function level(value: number | undefined, low: number, high: number): string {
  return value === undefined ? '0' : value >= high ? '3' : value >= low ? '2' : '1';
}

function temp(c: number, spec: BoltwoodSpec, difference = false): number {
  return spec.temperatureUnit === 'C' ? c : difference ? (c * 9) / 5 : (c * 9) / 5 + 32;
}

function windIn(ms: number, spec: BoltwoodSpec): number {
  return spec.windUnit === 'm' ? ms : spec.windUnit === 'K' ? ms * 3.6 : ms / 0.44704;
}

/** One decimal, right-aligned in `width`, kept inside what the column holds. */
function num(x: number, width: number): string {
  return clamp(x, -999.9, 999.9).toFixed(1).padStart(width);
}

function clamp(x: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, x));
}
