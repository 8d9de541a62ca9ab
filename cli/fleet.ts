import { isTableName } from '../daemon/forward/postgres-schema.js';
import { redactUrlText } from '../daemon/forward/secrets.js';
import { ConfigError } from '../lib/errors.js';
import { maxAgeOf, parseMaxAge, readingMaxAge, type MaxAgeRules } from '../lib/max-age.js';
import { formatAge } from '../table/format.js';
import { EXIT } from './failure.js';
import type { CoverageRow, UnitRow } from './fleet-query.js';
import { say, show, type CliIo } from './io.js';
import { secondsOption, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry fleet`: one line per unit of a fleet's PostgreSQL (docs/fleet.md): silent units
// first (nothing heard for --silent-after), then those with stale readings, with their lag,
// version and when they were last heard; exit 4 when a unit is silent. `telemetry fleet
// coverage`: each unit's seqs per stream and the gaps between them.

const DEFAULT_SILENT_MS = 60_000;
const DEFAULT_MAX_AGE = '*=600';
const DEFAULT_TIMEOUT_MS = 10_000;
// where --db is read from when not given
const DB_VARIABLE = 'MERIDIAN_TELEMETRY_FLEET_DB';
// two daemons with one unit id seen this recently: the unit shows as duplicate
const DUPLICATE_WINDOW_S = 600;

/** A unit as the table and --json show it. */
export interface FleetUnit {
  unit: string;
  state: 'silent' | 'duplicate' | 'stale' | 'ok';
  last_heard: string;
  heard_s: number;
  types: number;
  stale: number;
  stale_types: string[];
  lag_events: number;
  lag_seconds: number;
  version: string | null;
  newest_ts: string | null;
  /** When two daemons with this unit id were last seen taking turns (null: never). */
  duplicate_at: string | null;
  /** The unit's safety verdict (its current `meridian.safety` reading's `data.safe`); null: not known (none, or not a boolean). */
  safe: boolean | null;
}

/** Run `fleet` or `fleet coverage`; resolves the exit code. */
export async function runFleet(what: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  if (what !== undefined && what !== 'coverage') throw new UsageError(`unknown fleet view ${JSON.stringify(what)} (the views: the units, or coverage)`);
  const fromVariable = io.env[DB_VARIABLE]?.trim() || undefined;
  const db = textOption(opts, 'db') ?? fromVariable;
  if (db === undefined) throw new UsageError(`--db is required (or ${DB_VARIABLE}): the fleet's database, postgres://user@host/database`);
  const dbName = textOption(opts, 'db') === undefined ? DB_VARIABLE : '--db';
  if (!/^postgres(ql)?:\/\//.test(db)) throw new ConfigError(dbName, 'a postgres:// or postgresql:// URL', redactUrlText(db));
  const table = textOption(opts, 'table') ?? 'meridian_events';
  if (!isTableName(table)) throw new ConfigError('--table', 'a lower-case name (letters, digits, _), optionally schema.table', table);
  const timeoutMs = secondsOption(opts, 'timeout', DEFAULT_TIMEOUT_MS, { max: 600 });
  const json = switchOption(opts, 'json');
  const query = await import('./fleet-query.js');
  if (what === 'coverage') {
    const rows = await query.queryCoverage(db, table, timeoutMs);
    show(io, json ? `${JSON.stringify(rows)}\n` : coverageLines(rows).map((l) => `${l}\n`).join(''));
    return EXIT.OK;
  }
  const silentMs = secondsOption(opts, 'silent-after', DEFAULT_SILENT_MS);
  const rules = parseMaxAge(textOption(opts, 'max-age') ?? DEFAULT_MAX_AGE, '--max-age');
  const units = fleetUnits(await query.queryUnits(db, table, timeoutMs), silentMs, rules);
  show(io, json ? `${JSON.stringify(units)}\n` : unitLines(units).map((l) => `${l}\n`).join(''));
  const silent = units.filter((u) => u.state === 'silent');
  if (silent.length === 0) return EXIT.OK;
  say(io, `${silent.length} unit(s) silent for more than ${silentMs / 1000} s: ${silent.map((u) => u.unit).join(', ')}`);
  return EXIT.NOT_FRESH;
}

/** The units judged and ordered: silent first, then those with two daemons, then those with stale readings, unsafe ones first in each, then by stale readings (most first), then by name. */
export function fleetUnits(rows: readonly UnitRow[], silentMs: number, rules: MaxAgeRules): FleetUnit[] {
  const units = rows.map((r): FleetUnit => {
    const staleTypes = r.readings.filter((reading) => {
      const limit = readingMaxAge({ type: reading.type, meta: { max_age_s: reading.max_age_s } }) ?? maxAgeOf(rules, reading.type);
      return limit !== undefined && (reading.age_s === null || reading.age_s > limit);
    }).map((reading) => reading.type);
    const silent = r.heard_s * 1000 > silentMs;
    const duplicate = r.duplicate_s !== null && r.duplicate_s <= DUPLICATE_WINDOW_S;
    return {
      unit: r.unit, state: silent ? 'silent' : duplicate ? 'duplicate' : staleTypes.length > 0 ? 'stale' : 'ok', last_heard: r.last_heard, heard_s: Math.max(0, r.heard_s),
      types: r.readings.length, stale: staleTypes.length, stale_types: staleTypes, lag_events: r.lag_events, lag_seconds: r.lag_seconds,
      version: r.version, newest_ts: r.newest_ts, duplicate_at: r.duplicate_at, safe: r.safe,
    };
  });
  const rank = { silent: 0, duplicate: 1, stale: 2, ok: 3 };
  const unsafe = (u: FleetUnit) => (u.safe === false ? 0 : 1);
  return units.sort((a, b) => rank[a.state] - rank[b.state] || unsafe(a) - unsafe(b) || b.stale - a.stale || (a.unit < b.unit ? -1 : a.unit > b.unit ? 1 : 0));
}

// UNIT STATE SAFE STALE HEARD LAG VERSION, columns as wide as their widest cell, then the totals
function unitLines(units: readonly FleetUnit[]): string[] {
  const rows = units.map((u) => [u.unit, u.state, u.safe === null ? '-' : u.safe ? 'safe' : 'UNSAFE', `${u.stale}/${u.types}`, `${formatAge(u.heard_s * 1000)} ago`,
    u.lag_events === 0 ? '0' : `${u.lag_events} / ${formatAge(u.lag_seconds * 1000)}`, u.version ?? '-']);
  const count = (state: FleetUnit['state']) => units.filter((u) => u.state === state).length;
  const duplicates = count('duplicate') > 0 ? `, ${count('duplicate')} with two daemons on one unit id` : '';
  const total = `${units.length} unit(s): ${count('silent')} silent${duplicates}, ${count('stale')} with stale readings, ${count('ok')} ok`;
  return [...columns([['UNIT', 'STATE', 'SAFE', 'STALE', 'HEARD', 'LAG', 'VERSION'], ...rows]), total];
}

// UNIT STREAM SEQS EVENTS TWICE GAPS (the first three ranges, then how many more)
function coverageLines(rows: readonly CoverageRow[]): string[] {
  const cells = rows.map((r) => {
    const ranges = r.gaps.slice(0, 3).map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`));
    const more = r.gaps.length > 3 ? ` +${r.gaps.length - 3} more` : '';
    return [r.unit, r.stream, `${r.first}-${r.last}`, String(r.events), String(r.twice), r.gaps.length === 0 ? 'none' : `${ranges.join(', ')}${more}`];
  });
  return columns([['UNIT', 'STREAM', 'SEQS', 'EVENTS', 'TWICE', 'GAPS'], ...cells]);
}

function columns(rows: readonly string[][]): string[] {
  const width = (i: number) => Math.max(...rows.map((r) => r[i]!.length));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(width(i)))).join('  ').trimEnd());
}
