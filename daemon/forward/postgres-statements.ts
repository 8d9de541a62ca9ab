import { tableNames } from './postgres-schema.js';

// The statements of one PostgreSQL transaction (postgres.ts): the month partitions a batch
// needs, the batch's rows, the unit's current rows, its line in the units table. The tables
// are migration 3's (postgres-schema.ts); docs/fleet.md shows them.

/** The statements of a table, built once per sink. */
export interface FleetStatements {
  /** $1 the months (timestamptz[]) whose partitions must exist; run under `partitionLock`. */
  partitions: string;
  /** $1 the lock key: one creator of partitions at a time across units. */
  partitionLock: string;
  /** The batch's rows, exactly once per (unit, stream, seq); `lenient`: a line jsonb refuses is kept with NULL data and meta. */
  insert(lenient: boolean): string;
  /**
   * The unit's current rows, replaced only by a reading of another stream or a higher seq of the
   * same one; `force` (the whole view): replaced whatever they were (a unit whose site directory
   * started afresh has lower seqs). A ts PostgreSQL cannot hold: left out, never refused.
   */
  current(force: boolean): string;
  /** $1 unit, $2 the types of its whole view: the unit's rows of other types go. */
  notCurrent: string;
  /**
   * $1 unit, $2 stream, $3 lines, $4 seqs, $5 ts: the seqs whose key the table holds with another
   * line (another daemon forwarding with the same unit id got there first).
   */
  clashes: string;
  /**
   * The unit's line: last heard (the database's clock), its clock's offset against the database's, version, lag, newest ts forwarded, its alarms, the
   * daemon's instance; `duplicate_at` set when the instance flips back to the one before within
   * 10 minutes (two daemons with one unit id take turns; a restart changes it once). Returns
   * `inserted`: true when the row was not there (a new unit, or one retired meanwhile).
   */
  unit: string;
}

/** The statements for the table `name`. */
export function fleetStatements(name: string): FleetStatements {
  const t = tableNames(name);
  const insert = (lenient: boolean) => {
    const parse = lenient ? `${t.toJsonb}(u.line)` : 'u.line::jsonb';
    // $1 unit, $2 stream, $3 lines, $4 seqs, $5 ts, $6 types
    return `INSERT INTO ${t.events} (unit, stream, seq, ts, type, data, meta, line)
      SELECT $1, $2, u.seq, u.ts::timestamptz, u.type, x.e->'data', CASE WHEN x.e IS NOT NULL THEN coalesce(x.e->'meta', '{}') END, u.line
      FROM unnest($3::text[], $4::bigint[], $5::text[], $6::text[]) AS u(line, seq, ts, type)
      CROSS JOIN LATERAL (SELECT ${parse} AS e) AS x
      ON CONFLICT (unit, stream, seq, ts) DO NOTHING RETURNING seq`;
  };
  return {
    partitions: `SELECT ${t.partition}(m) FROM unnest($1::timestamptz[]) AS m`,
    partitionLock: 'SELECT pg_advisory_xact_lock(hashtext($1))',
    insert,
    // $1 unit, $2 types, $3 streams, $4 seqs, $5 ts, $6 lines
    current: (force: boolean) => `INSERT INTO ${t.current} AS c (unit, type, stream, seq, ts, data, meta, line, updated_at)
      SELECT $1, u.type, u.stream, u.seq, ${t.toTs}(u.ts), x.e->'data', CASE WHEN x.e IS NOT NULL THEN coalesce(x.e->'meta', '{}') END, u.line, now()
      FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[]) AS u(type, stream, seq, ts, line)
      CROSS JOIN LATERAL (SELECT ${t.toJsonb}(u.line) AS e) AS x
      WHERE ${t.toTs}(u.ts) IS NOT NULL
      ON CONFLICT (unit, type) DO UPDATE SET stream = excluded.stream, seq = excluded.seq, ts = excluded.ts, data = excluded.data,
        meta = excluded.meta, line = excluded.line, updated_at = excluded.updated_at
      ${force ? '' : 'WHERE c.stream <> excluded.stream OR excluded.seq > c.seq'}`,
    clashes: `SELECT u.seq::text AS seq FROM unnest($3::text[], $4::bigint[], $5::text[]) AS u(line, seq, ts)
      JOIN ${t.events} AS e ON e.unit = $1 AND e.stream = $2 AND e.seq = u.seq AND e.ts = u.ts::timestamptz
      WHERE e.line <> u.line ORDER BY u.seq`,
    notCurrent: `DELETE FROM ${t.current} WHERE unit = $1 AND NOT (type = ANY($2::text[]))`,
    // $1 unit, $2 version, $3 lag events, $4 lag seconds, $5 the newest ts of the batch (or NULL), $6 instance, $7 the unit's clock (ms),
    // $8-$11 its alarms: worst severity, unacknowledged, worst id, when taken (ms; all NULL: none configured)
    unit: `INSERT INTO ${t.units} AS n (unit, first_heard, last_heard, version, lag_events, lag_seconds, newest_ts, instance, clock_offset_s,
        alarm_severity, alarm_unacked, alarm_id, alarm_at)
      VALUES ($1, now(), now(), $2, $3, $4, $5::timestamptz, $6, $7::float8 / 1000 - extract(epoch FROM clock_timestamp())::float8,
        $8, $9, $10, to_timestamp($11::float8 / 1000))
      ON CONFLICT (unit) DO UPDATE SET last_heard = now(), version = excluded.version, lag_events = excluded.lag_events,
        clock_offset_s = excluded.clock_offset_s, alarm_severity = excluded.alarm_severity, alarm_unacked = excluded.alarm_unacked,
        alarm_id = excluded.alarm_id, alarm_at = excluded.alarm_at,
        lag_seconds = excluded.lag_seconds, newest_ts = greatest(n.newest_ts, excluded.newest_ts), instance = excluded.instance,
        previous_instance = CASE WHEN excluded.instance <> n.instance THEN n.instance ELSE n.previous_instance END,
        duplicate_at = CASE WHEN excluded.instance <> n.instance AND excluded.instance = n.previous_instance
          AND n.last_heard > now() - interval '10 minutes' THEN now() ELSE n.duplicate_at END
      RETURNING (xmax = 0) AS inserted`,
  };
}

/** The first instant (UTC) of each month the ts of a batch fall in, once each, as ISO text. */
export function monthsOf(tss: readonly string[]): string[] {
  const months = new Set<string>();
  for (const ts of tss) {
    const ms = Date.parse(ts);
    // a ts JavaScript cannot read is left to PostgreSQL, which refuses the row (a dead letter)
    if (Number.isNaN(ms)) continue;
    // as text, not Date.UTC: that reads years 0-99 as 1900-1999. A year PostgreSQL cannot hold
    // (0000: a ts of 0001-01-01 with a + offset, in UTC) is left to it too
    const iso = new Date(ms).toISOString();
    const year = Number(iso.slice(0, 4));
    if (iso.length !== 24 || year < 1) continue;
    months.add(`${iso.slice(0, 7)}-01T00:00:00.000Z`);
  }
  return [...months];
}
