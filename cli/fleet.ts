import { isTableName } from '../daemon/forward/postgres-schema.js';
import { libpqUrl } from '../daemon/forward/postgres-url.js';
import { redactUrlText } from '../daemon/forward/secrets.js';
import { ConfigError } from '../lib/errors.js';
import { parseMaxAge } from '../lib/max-age.js';
import { columnLines, fleetTotals, fleetUnits, unitCells, UNIT_HEADS, type FleetUnit } from '../table/fleet-units.js';
import { EXIT } from './failure.js';
import type { CoverageRow, Retired } from './fleet-query.js';
import { parseUnitId } from '../lib/setting-values.js';
import { formatAge } from '../table/format.js';
import { say, show, type CliIo } from './io.js';
import { requireWith, secondsOption, switchOption, textOption, UsageError, type ParsedOptions } from './options.js';

// `telemetry fleet`: one line per unit of a fleet's PostgreSQL (docs/fleet.md): silent units
// first (nothing heard for --silent-after), then those with stale readings, with their lag,
// version and when they were last heard; exit 4 when a unit is silent. `telemetry fleet
// coverage`: each unit's seqs per stream and the gaps between them.

const DEFAULT_SILENT_MS = 60_000;
// an idle unit writes its line every 10 s: a unit is silent only after missing at least one
const MIN_SILENT_S = 20;
const DEFAULT_MAX_AGE = '*=600';
const DEFAULT_TIMEOUT_MS = 10_000;
// --follow polls the database this often (one light query): a change is on screen within about this
const DEFAULT_INTERVAL_MS = 500;
// where --db is read from when not given
const DB_VARIABLE = 'MERIDIAN_TELEMETRY_FLEET_DB';

/** Run `fleet`, `fleet coverage` or `fleet retire UNIT`; resolves the exit code. */
export async function runFleet(what: unknown, unitArg: unknown, opts: ParsedOptions, io: CliIo): Promise<number> {
  if (what !== undefined && what !== 'coverage' && what !== 'retire') {
    throw new UsageError(`unknown fleet view ${JSON.stringify(what)} (the views: the units, coverage, or retire UNIT)`);
  }
  if (what === 'retire' && unitArg === undefined) throw new UsageError('retire needs the unit to retire: telemetry fleet retire UNIT');
  if (what !== 'retire' && unitArg !== undefined) throw new UsageError(`a unit (${JSON.stringify(unitArg)}) is named only with retire`);
  const fromVariable = io.env[DB_VARIABLE]?.trim() || undefined;
  const db = textOption(opts, 'db') ?? fromVariable;
  if (db === undefined) throw new UsageError(`--db is required (or ${DB_VARIABLE}): the fleet's database, postgres://user@host/database`);
  const dbName = textOption(opts, 'db') === undefined ? DB_VARIABLE : '--db';
  if (!/^postgres(ql)?:\/\//.test(db)) throw new ConfigError(dbName, 'a postgres:// or postgresql:// URL', redactUrlText(db));
  libpqUrl(db, dbName); // its sslmode checked before any connection (--follow would retry it for ever)
  const table = textOption(opts, 'table') ?? 'meridian_events';
  if (!isTableName(table)) throw new ConfigError('--table', 'a lower-case name (letters, digits, _), optionally schema.table', table);
  const timeoutMs = secondsOption(opts, 'timeout', DEFAULT_TIMEOUT_MS, { max: 600 });
  const json = switchOption(opts, 'json');
  const follow = switchOption(opts, 'follow');
  if (!follow) requireWith(opts, ['interval'], 'follow');
  if (follow && what !== undefined) throw new UsageError(`--follow applies to the units, not to ${what}`);
  const intervalMs = secondsOption(opts, 'interval', DEFAULT_INTERVAL_MS, { min: 0.1, max: 3600 });
  const query = await import('./fleet-query.js');
  if (what === 'coverage') {
    const rows = await query.queryCoverage(db, table, timeoutMs);
    show(io, json ? `${JSON.stringify(rows)}\n` : coverageLines(rows).map((l) => `${l}\n`).join(''));
    return EXIT.OK;
  }
  const silentMs = secondsOption(opts, 'silent-after', DEFAULT_SILENT_MS, { min: MIN_SILENT_S });
  if (what === 'retire') {
    const retired = await query.retireUnit(db, table, parseUnitId(String(unitArg), 'UNIT'), silentMs, timeoutMs);
    show(io, json ? `${JSON.stringify(retired)}\n` : `${retiredLine(retired)}\n`);
    return EXIT.OK;
  }
  const rules = parseMaxAge(textOption(opts, 'max-age') ?? DEFAULT_MAX_AGE, '--max-age');
  const poll = async () => fleetUnits(await query.queryUnits(db, table, timeoutMs), silentMs, rules);
  if (follow) {
    const where = `${redactUrlText(db)} (${table})`;
    return (await import('./fleet-follow.js')).followFleet({ poll, where, intervalMs, json }, io);
  }
  const units = await poll();
  show(io, json ? `${JSON.stringify(units)}\n` : unitLines(units).map((l) => `${l}\n`).join(''));
  const silent = units.filter((u) => u.state === 'silent');
  if (silent.length === 0) return EXIT.OK;
  say(io, `${silent.length} unit(s) silent for more than ${silentMs / 1000} s: ${silent.map((u) => u.unit).join(', ')}`);
  return EXIT.NOT_FRESH;
}

// what `fleet retire` did, in one line
function retiredLine(r: Retired): string {
  return `retired ${r.unit}: last heard ${formatAge(r.heard_s * 1000)} ago; its line and ${r.readings} current reading(s) removed, `
    + 'its events kept; it is listed again when it is heard again';
}

// UNIT STATE SAFE STALE HEARD LAG VERSION, columns as wide as their widest cell, then the totals
function unitLines(units: readonly FleetUnit[]): string[] {
  return [...columnLines([[...UNIT_HEADS], ...units.map(unitCells)]), fleetTotals(units)];
}

// UNIT STREAM SEQS EVENTS TWICE GAPS (the first three ranges, then how many more)
function coverageLines(rows: readonly CoverageRow[]): string[] {
  const cells = rows.map((r) => {
    const ranges = r.gaps.slice(0, 3).map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`));
    const more = r.gaps.length > 3 ? ` +${r.gaps.length - 3} more` : '';
    return [r.unit, r.stream, `${r.first}-${r.last}`, String(r.events), String(r.twice), r.gaps.length === 0 ? 'none' : `${ranges.join(', ')}${more}`];
  });
  return columnLines([['UNIT', 'STREAM', 'SEQS', 'EVENTS', 'TWICE', 'GAPS'], ...cells]);
}
