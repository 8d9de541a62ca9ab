import { displayWidth, padEndWidth } from '../lib/display-width.js';
import { maxAgeOf, readingMaxAge, type MaxAgeRules } from '../lib/max-age.js';
import { alarmRank, type UnitAlarms } from '../lib/unit-alarms.js';
import { formatAge } from './format.js';

// A fleet's units as `telemetry fleet` and its console show them (docs/fleet.md): each unit
// judged silent, duplicate, stale or ok from its row in the fleet's database, ordered silent
// first, and its cells in the table's columns.

// two daemons with one unit id seen this recently: the unit shows as duplicate
const DUPLICATE_WINDOW_S = 600;

/** One unit as the database knows it (times in the envelope's form, UTC with ms). */
export interface UnitRow {
  unit: string;
  version: string | null;
  lag_events: number;
  lag_seconds: number;
  last_heard: string;
  /** Seconds since last_heard, by the database's clock. */
  heard_s: number;
  newest_ts: string | null;
  /** When two daemons with this unit id were last seen taking turns, and how long ago (s, the database's clock); null: never. */
  duplicate_at: string | null;
  duplicate_s: number | null;
  /** `data.safe` of its current `meridian.safety` reading (the daemon's safety verdict) when a boolean; null: not known. */
  safe: boolean | null;
  /** Its alarms as its last units row wrote them (migration 5; all null: no [[alarm]] configured, or a unit of an earlier version). */
  alarm_severity: string | null;
  alarm_unacked: number | null;
  alarm_id: string | null;
  /** When the unit took them, by its clock. */
  alarm_at: string | null;
  /** Its current readings: type, age in seconds by the unit's clock (the database's plus its offset; null: no ts), the reading's own limit. */
  readings: { type: string; age_s: number | null; max_age_s: unknown }[];
}

/** A unit as the table and --json show it. */
export interface FleetUnit {
  unit: string;
  /** `unjudged`: its last_heard is ahead of the database's clock (the clock stepped back): how long it is silent cannot be told. */
  state: 'silent' | 'unjudged' | 'duplicate' | 'stale' | 'ok';
  last_heard: string;
  /** null when unjudged. */
  heard_s: number | null;
  types: number;
  stale: number;
  stale_types: string[];
  lag_events: number;
  lag_seconds: number;
  version: string | null;
  newest_ts: string | null;
  /** When two daemons with this unit id were last seen taking turns (null: never). */
  duplicate_at: string | null;
  /** The unit's safety verdict (its current `meridian.safety` reading's `data.safe`); null: not known (none, not a boolean, or the unit silent or unjudged). */
  safe: boolean | null;
  /** The unit's alarms (null: no [[alarm]] configured); `unjudged`: as of last heard, the unit silent or unjudged. */
  alarm: FleetAlarm | null;
}

/** A unit's alarms as the fleet shows them. */
export interface FleetAlarm extends UnitAlarms {
  /** When the unit took them, by its clock. */
  at: string | null;
  /** The unit is silent or unjudged: its alarms as of when it was last heard, not what stands now. */
  unjudged: boolean;
}

/** The column heads of a unit's cells. */
export const UNIT_HEADS = ['UNIT', 'STATE', 'SAFE', 'ALARM', 'STALE', 'HEARD', 'LAG', 'VERSION'] as const;

/**
 * The units judged and ordered: silent first, then those not judged (last heard ahead of the
 * database's clock), then those with two daemons, then those that need a look (unsafe, an alarm
 * standing, stale readings), the rest last; in each: unsafe first, then by worst alarm (an
 * unacknowledged one first), then by stale readings (most first), then by name.
 */
export function fleetUnits(rows: readonly UnitRow[], silentMs: number, rules: MaxAgeRules): FleetUnit[] {
  const units = rows.map((r): FleetUnit => {
    const staleTypes = r.readings.filter((reading) => {
      const limit = readingMaxAge({ type: reading.type, meta: { max_age_s: reading.max_age_s } }) ?? maxAgeOf(rules, reading.type);
      return limit !== undefined && (reading.age_s === null || reading.age_s > limit);
    }).map((reading) => reading.type);
    const silent = r.heard_s * 1000 > silentMs;
    const unjudged = r.heard_s < 0;
    const duplicate = r.duplicate_s !== null && r.duplicate_s <= DUPLICATE_WINDOW_S;
    const state = silent ? 'silent' : unjudged ? 'unjudged' : duplicate ? 'duplicate' : staleTypes.length > 0 ? 'stale' : 'ok';
    return {
      unit: r.unit, state, last_heard: r.last_heard, heard_s: unjudged ? null : r.heard_s,
      types: r.readings.length, stale: staleTypes.length, stale_types: staleTypes, lag_events: r.lag_events, lag_seconds: r.lag_seconds,
      // a verdict the unit no longer stands behind (silent) or whose unit cannot be judged is not known
      version: r.version, newest_ts: r.newest_ts, duplicate_at: r.duplicate_at, safe: silent || unjudged ? null : r.safe,
      alarm: fleetAlarm(r, silent || unjudged),
    };
  });
  const group = (u: FleetUnit) => ({ silent: 0, unjudged: 1, duplicate: 2, stale: 3, ok: needsLook(u) ? 3 : 4 })[u.state];
  const unsafe = (u: FleetUnit) => (u.safe === false ? 0 : 1);
  return units.sort((a, b) => group(a) - group(b) || unsafe(a) - unsafe(b) || alarmRank(b.alarm) - alarmRank(a.alarm) || b.stale - a.stale
    || (a.unit < b.unit ? -1 : a.unit > b.unit ? 1 : 0));
}

/** Whether a unit needs a look: not ok, unsafe, or an alarm standing (the console draws it in yellow). */
export function needsLook(u: FleetUnit): boolean {
  return u.state !== 'ok' || u.safe === false || alarmRank(u.alarm) >= 0;
}

// a row's alarms; null when the unit has none configured (or an earlier version wrote its row)
function fleetAlarm(r: UnitRow, unjudged: boolean): FleetAlarm | null {
  const severity = r.alarm_severity;
  if (severity !== 'none' && severity !== 'warning' && severity !== 'serious' && severity !== 'critical') return null;
  return { severity, unacked: r.alarm_unacked ?? 0, id: r.alarm_id, at: r.alarm_at, unjudged };
}

/** A unit's ALARM cell: `-` (none configured), `none`, the worst severity with `!` while one waits for an acknowledgement, `?` after it when as of last heard. */
export function alarmCell(a: FleetAlarm | null): string {
  if (a === null) return '-';
  return `${a.severity}${a.unacked > 0 ? '!' : ''}${a.unjudged ? '?' : ''}`;
}

/** A unit's cells under UNIT_HEADS. */
export function unitCells(u: FleetUnit): string[] {
  return [u.unit, u.state, u.safe === null ? '-' : u.safe ? 'safe' : 'UNSAFE', alarmCell(u.alarm), `${u.stale}/${u.types}`, (u.heard_s === null ? 'ahead of db' : `${formatAge(u.heard_s * 1000)} ago`),
    u.lag_events === 0 ? '0' : `${u.lag_events} / ${formatAge(u.lag_seconds * 1000)}`, u.version ?? '-'];
}

/** The totals line: `50 unit(s): 2 silent, 3 with stale readings, 45 ok` (with the unjudged and the duplicates when there are; then `; 2 with alarms (1 unacked)`: alarms standing now, when there are). */
export function fleetTotals(units: readonly FleetUnit[]): string {
  const count = (state: FleetUnit['state']) => units.filter((u) => u.state === state).length;
  const duplicates = count('duplicate') > 0 ? `, ${count('duplicate')} with two daemons on one unit id` : '';
  const unjudged = count('unjudged') > 0 ? `, ${count('unjudged')} not judged (last heard ahead of the database's clock)` : '';
  // alarms standing now (a silent unit's are as of last heard): they overlap the states
  const standing = units.filter((u) => alarmRank(u.alarm) >= 0 && !u.alarm!.unjudged);
  const unacked = standing.filter((u) => u.alarm!.unacked > 0).length;
  const alarms = standing.length > 0 ? `; ${standing.length} with alarms (${unacked} unacked)` : '';
  return `${units.length} unit(s): ${count('silent')} silent${unjudged}${duplicates}, ${count('stale')} with stale readings, ${count('ok')} ok${alarms}`;
}

/** Rows of cells as lines: each column as wide as its widest cell in display columns (wide characters 2), two spaces between, the last not padded. */
export function columnLines(rows: readonly (readonly string[])[]): string[] {
  const width = (i: number) => Math.max(...rows.map((r) => displayWidth(r[i]!)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : padEndWidth(cell, width(i)))).join('  ').trimEnd());
}
