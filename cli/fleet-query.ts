import pg from 'pg';
import { tableNames } from '../daemon/forward/postgres-schema.js';
import { redactUrlText } from '../daemon/forward/secrets.js';
import type { UnitRow } from '../table/fleet-units.js';
import { libpqUrl } from '../daemon/forward/postgres-url.js';
import { CommandFailure, NoPeer } from './failure.js';
import { UsageError } from './options.js';

// What `telemetry fleet` reads from the fleet's PostgreSQL tables (docs/fleet.md): each unit's
// line with its current readings, and each unit's seqs per stream. last_heard's age is the
// database's clock (`now()`), the clock it is written with; a reading's age is the unit's own
// clock (the database's plus the unit's offset at its last transaction, `clock_offset_s`, read
// through to_jsonb so that a table no unit of this version migrated yet still answers, as are
// the unit's alarms of migration 5).

/** One stream of one unit: its seqs and the gaps between them. */
export interface CoverageRow {
  unit: string;
  stream: string;
  first: number;
  last: number;
  events: number;
  /** Rows of a seq held before (two units with one id, or a unit's site directory started afresh). */
  twice: number;
  /** Missing seqs as [from, to] ranges, in order. */
  gaps: [number, number][];
}

/** The units and their current readings. */
export async function queryUnits(url: string, table: string, timeoutMs: number): Promise<UnitRow[]> {
  const t = tableNames(table);
  const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return withDatabase(url, timeoutMs, table, async (c) => (await c.query<UnitRow>(`SELECT u.unit, u.version, u.lag_events::float8 AS lag_events,
      u.lag_seconds, ${iso('u.last_heard')} AS last_heard, extract(epoch FROM now() - u.last_heard)::float8 AS heard_s,
      ${iso('u.newest_ts')} AS newest_ts, ${iso('u.duplicate_at')} AS duplicate_at,
      to_jsonb(u)->>'alarm_severity' AS alarm_severity, (to_jsonb(u)->>'alarm_unacked')::float8 AS alarm_unacked,
      to_jsonb(u)->>'alarm_id' AS alarm_id, ${iso("(to_jsonb(u)->>'alarm_at')::timestamptz")} AS alarm_at,
      extract(epoch FROM now() - u.duplicate_at)::float8 AS duplicate_s,
      (SELECT CASE WHEN jsonb_typeof(v.data->'safe') = 'boolean' THEN (v.data->>'safe')::boolean END FROM ${t.current} v
        WHERE v.unit = u.unit AND v.type = 'meridian.safety') AS safe,
      coalesce(json_agg(json_build_object('type', c.type, 'age_s', extract(epoch FROM now() - c.ts)::float8
          + coalesce((to_jsonb(u)->>'clock_offset_s')::float8, 0), 'max_age_s', c.meta->'max_age_s')
        ORDER BY c.type) FILTER (WHERE c.type IS NOT NULL), '[]') AS readings
    FROM ${t.units} u LEFT JOIN ${t.current} c ON c.unit = u.unit GROUP BY u.unit ORDER BY u.unit`)).rows);
}

/** What retiring a unit removed: its line (last heard then) and its current rows. */
export interface Retired {
  unit: string;
  last_heard: string;
  heard_s: number;
  readings: number;
}

/**
 * Retire a silent unit: its line in the units table and its current rows deleted in one statement,
 * only while it is silent (nothing heard for `silentMs` by the database's clock); its events stay.
 * A unit heard again writes its line again (and, back from an outage, its whole view).
 */
export async function retireUnit(url: string, table: string, unit: string, silentMs: number, timeoutMs: number): Promise<Retired> {
  const t = tableNames(table);
  const iso = `to_char(last_heard AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return withDatabase(url, timeoutMs, table, async (c) => {
    const { rows } = await c.query<Retired>(`WITH gone AS (
        DELETE FROM ${t.units} WHERE unit = $1 AND last_heard < now() - make_interval(secs => $2) RETURNING unit, last_heard),
      cur AS (DELETE FROM ${t.current} c USING gone WHERE c.unit = gone.unit RETURNING 1)
      SELECT unit, ${iso} AS last_heard, extract(epoch FROM now() - last_heard)::float8 AS heard_s,
        (SELECT count(*) FROM cur)::float8 AS readings FROM gone`, [unit, silentMs / 1000]);
    if (rows[0] !== undefined) return rows[0];
    const held = await c.query<{ heard_s: number }>(`SELECT extract(epoch FROM now() - last_heard)::float8 AS heard_s FROM ${t.units} WHERE unit = $1`, [unit]);
    const heard = held.rows[0]?.heard_s;
    if (heard === undefined) throw new CommandFailure(`no unit ${JSON.stringify(unit)} in ${table} at ${redactUrlText(url)} (\`telemetry fleet\` lists the units)`);
    const when = heard < 0 ? 'its last word is ahead of the database\'s clock' : `it was heard ${Math.floor(heard)} s ago`;
    throw new CommandFailure(`${unit} is not silent (${when}): only a unit silent for --silent-after (${silentMs / 1000} s) is retired`);
  });
}

/** Each unit's streams: first and last seq, events, seqs held twice and the gaps (reads the whole events table). */
export async function queryCoverage(url: string, table: string, timeoutMs: number): Promise<CoverageRow[]> {
  const t = tableNames(table);
  return withDatabase(url, timeoutMs, table, async (c) => (await c.query<CoverageRow>(`WITH s AS (
      SELECT unit, stream, seq, lead(seq) OVER (PARTITION BY unit, stream ORDER BY seq, ts) AS next FROM ${t.events})
    SELECT unit, stream, min(seq)::float8 AS first, max(seq)::float8 AS last, count(*)::float8 AS events,
      count(*) FILTER (WHERE next = seq)::float8 AS twice,
      coalesce(json_agg(json_build_array(seq + 1, next - 1) ORDER BY seq) FILTER (WHERE next > seq + 1), '[]') AS gaps
    FROM s GROUP BY unit, stream ORDER BY unit, stream`)).rows);
}

// one connection for one query; connection failures are NoPeer (exit 3), the rest CommandFailure (exit 1).
// The server ends a query waiting past the timeout itself (statement_timeout: a lock held on a
// table, a full scan), so nothing is left waiting there; the client's own timer is the backstop.
async function withDatabase<T>(url: string, timeoutMs: number, table: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const where = redactUrlText(url);
  const c = clientOf(url, timeoutMs);
  c.on('error', () => undefined);
  try {
    await c.connect();
  } catch (error) {
    await c.end().catch(() => undefined);
    throw connectFailure(error, where);
  }
  try {
    return await work(c);
  } catch (error) {
    if (error instanceof CommandFailure) throw error; // the work's own answer (retire)
    const e = error as { code?: unknown; message?: string };
    if (e.code === '42P01') throw new CommandFailure(`no fleet tables for ${table} at ${where}: ${e.message} (no unit of this version has forwarded to it yet)`);
    if (e.code === '57014' || e.message === 'Query read timeout') {
      throw new NoPeer(`no answer within ${timeoutMs / 1000} s (--timeout) from the database at ${where}: the query waited (a lock held on the fleet's tables?)`);
    }
    throw new CommandFailure(`the database at ${where} failed: ${e.message ?? String(error)}${typeof e.code === 'string' ? ` (SQLSTATE ${e.code})` : ''}`);
  } finally {
    await c.end().catch(() => undefined);
  }
}

// the client of `url`, its sslmode read the libpq way; an SSL file it names that cannot be read is a usage mistake
function clientOf(url: string, timeoutMs: number): pg.Client {
  const connectionString = libpqUrl(url, '--db');
  try {
    return new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs, lock_timeout: timeoutMs, query_timeout: timeoutMs + 1000, application_name: 'meridian-fleet' });
  } catch (error) {
    throw new UsageError(`--db names an SSL file that cannot be read: ${(error as Error).message}`);
  }
}

// why a connection failed, as one line: refused by the database or its SSL (exit 1), or nothing there (exit 3)
function connectFailure(error: unknown, where: string): Error {
  const e = error as { code?: unknown; message?: string };
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) return new CommandFailure(`the database at ${where} refused the connection: ${e.message} (SQLSTATE ${code})`);
  if (e.message === 'The server does not support SSL connections') {
    return new CommandFailure(`the database at ${where} does not take SSL connections (its sslmode asks for SSL): connect with sslmode=disable, or turn ssl on in its postgresql.conf`);
  }
  if (code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|^ERR_TLS|^ERR_SSL/.test(code)) {
    // Node's own reason only: Node 24 adds advice on its flags after a ';' (--use-system-ca), no use to a telemetry user
    return new CommandFailure(`the database at ${where} was refused: its SSL certificate did not verify (${(e.message ?? '').split(';')[0]}; ${code})`);
  }
  return new NoPeer(`no database at ${where} (${code ?? e.message ?? 'no answer within the timeout'})`);
}
