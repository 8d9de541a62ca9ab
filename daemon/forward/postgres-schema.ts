// The PostgreSQL sink's schema and its migrations (docs/forwarding.md shows the result).
// Each migration runs once, in order, in one transaction holding an advisory lock, so
// several units starting at once against a central database apply it exactly once.
// Migration 3 makes the table a fleet's: events keyed (unit, stream, seq), partitioned by month
// on ts; a current table (unit, type) and a units table (docs/fleet.md).

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

/** A table name as configured: `events` or `schema.events`, lower-case letters, digits and `_`. */
export function isTableName(name: string): boolean {
  const parts = name.split('.');
  return parts.length <= 2 && parts.every((p) => IDENT.test(p));
}

/** The quoted names the sink uses for a table name. */
export function tableNames(name: string) {
  const parts = name.split('.');
  const table = parts[parts.length - 1]!;
  const schema = parts.length === 2 ? `"${parts[0]}".` : '';
  return {
    table, schema,
    /** The schema as an SQL expression: the one named, else the connection's current schema. */
    schemaValue: parts.length === 2 ? `'${parts[0]}'` : 'current_schema()',
    events: `${schema}"${table}"`,
    current: `${schema}"${table}_current"`,
    units: `${schema}"${table}_units"`,
    migrations: `${schema}"${table}_migrations"`,
    index: `"${table}_type_ts"`,
    toJsonb: `${schema}"${table}_jsonb"`,
    partition: `${schema}"${table}_partition"`,
    toTs: `${schema}"${table}_ts"`,
    lockKey: name,
  };
}

/**
 * The migrations, oldest first: version n is MIGRATIONS[n - 1]. `unit` (a safe name: letters,
 * digits, `.`, `_`, `-`) is the unit the rows of a table made before migration 3 are given.
 */
export function migrations(name: string, unit: string): string[] {
  const t = tableNames(name);
  return [
    `CREATE TABLE IF NOT EXISTS ${t.events} (
       stream text NOT NULL,
       seq bigint NOT NULL,
       ts timestamptz NOT NULL,
       type text NOT NULL,
       data jsonb,
       meta jsonb NOT NULL DEFAULT '{}',
       PRIMARY KEY (stream, seq));
     CREATE INDEX IF NOT EXISTS ${t.index} ON ${t.events} (type, ts DESC);
     CREATE OR REPLACE VIEW ${t.current} AS
       SELECT DISTINCT ON (type) stream, seq, ts, type, data, meta FROM ${t.events}
       ORDER BY type, ts DESC, seq DESC;`,
    // 2: the envelope line exactly as recorded (jsonb respells numbers and refuses \u0000 and
    // lone surrogates); data and meta NULL for a line jsonb cannot hold
    `ALTER TABLE ${t.events} ADD COLUMN IF NOT EXISTS line text;
     ALTER TABLE ${t.events} ALTER COLUMN meta DROP NOT NULL;
     CREATE OR REPLACE FUNCTION ${t.toJsonb}(text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE STRICT AS
       $$BEGIN RETURN $1::jsonb; EXCEPTION WHEN data_exception THEN RETURN NULL; END$$;
     CREATE OR REPLACE VIEW ${t.current} AS
       SELECT DISTINCT ON (type) stream, seq, ts, type, data, meta, line FROM ${t.events}
       ORDER BY type, ts DESC, seq DESC;`,
    fleetMigration(name, unit),
    // 4: the unit's clock against the database's at its last transaction (s, + when the unit's is
    // ahead): `telemetry fleet` judges a reading's age on the unit's own clock
    `ALTER TABLE ${t.units} ADD COLUMN IF NOT EXISTS clock_offset_s double precision;`,
    // 5: the unit's alarms (NULL: none configured, or a unit of an earlier version): the worst standing
    // severity, how many wait for an acknowledgement, the worst alarm's id, when the unit took them (its clock)
    `ALTER TABLE ${t.units} ADD COLUMN IF NOT EXISTS alarm_severity text, ADD COLUMN IF NOT EXISTS alarm_unacked integer,
       ADD COLUMN IF NOT EXISTS alarm_id text, ADD COLUMN IF NOT EXISTS alarm_at timestamptz;`,
  ];
}

// 3: a fleet's tables. A partitioned table cannot be made from a plain one in place: the rows
// move to a new table (each month its partition), given the migrating unit's id
function fleetMigration(name: string, unit: string): string {
  const t = tableNames(name);
  const old = `${t.schema}"${t.table}_v2"`;
  return `DROP VIEW IF EXISTS ${t.current};
     ALTER TABLE ${t.events} RENAME TO "${t.table}_v2";
     CREATE TABLE ${t.events} (
       unit text NOT NULL, stream text NOT NULL, seq bigint NOT NULL, ts timestamptz NOT NULL, type text NOT NULL,
       data jsonb, meta jsonb, line text,
       CONSTRAINT "${t.table}_key" PRIMARY KEY (unit, stream, seq, ts)) PARTITION BY RANGE (ts);
     CREATE INDEX "${t.table}_unit_type_ts" ON ${t.events} (unit, type, ts DESC);
     CREATE OR REPLACE FUNCTION ${t.partition}(m timestamptz) RETURNS void LANGUAGE plpgsql AS $$
       DECLARE
         first timestamp := date_trunc('month', m AT TIME ZONE 'UTC');
         part text := '${t.table}_p' || to_char(first, 'YYYYMM');
       BEGIN
         IF to_regclass(format('%I.%I', ${t.schemaValue}, part)) IS NOT NULL THEN RETURN; END IF;
         EXECUTE format('CREATE TABLE IF NOT EXISTS %I.%I PARTITION OF %I.%I FOR VALUES FROM (%L) TO (%L)', ${t.schemaValue}, part,
           ${t.schemaValue}, '${t.table}', first AT TIME ZONE 'UTC', (first + interval '1 month') AT TIME ZONE 'UTC');
       END$$;
     CREATE OR REPLACE FUNCTION ${t.toTs}(text) RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE STRICT AS
       $$BEGIN RETURN $1::timestamptz; EXCEPTION WHEN data_exception THEN RETURN NULL; END$$;
     SELECT ${t.partition}(m) FROM (SELECT DISTINCT date_trunc('month', ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS m FROM ${old}) AS months;
     INSERT INTO ${t.events} SELECT '${unit}', stream, seq, ts, type, data, meta, line FROM ${old};
     DROP TABLE ${old};
     CREATE TABLE ${t.current} (
       unit text NOT NULL, type text NOT NULL, stream text NOT NULL, seq bigint NOT NULL, ts timestamptz NOT NULL,
       data jsonb, meta jsonb, line text, updated_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (unit, type));
     INSERT INTO ${t.current} (unit, type, stream, seq, ts, data, meta, line)
       SELECT DISTINCT ON (type) unit, type, stream, seq, ts, data, meta, line FROM ${t.events} ORDER BY type, ts DESC, seq DESC;
     CREATE TABLE ${t.units} (
       unit text PRIMARY KEY, first_heard timestamptz NOT NULL DEFAULT now(), last_heard timestamptz NOT NULL DEFAULT now(),
       version text, lag_events bigint NOT NULL DEFAULT 0, lag_seconds double precision NOT NULL DEFAULT 0, newest_ts timestamptz,
       instance text, previous_instance text, duplicate_at timestamptz);`;
}

/** The statements that bring a database to the newest schema (run in one transaction). */
export function migrationScript(name: string): { lock: string; prepare: string; applied: string; record: string } {
  const t = tableNames(name);
  return {
    lock: `SELECT pg_advisory_xact_lock(hashtext($1))`,
    prepare: `CREATE TABLE IF NOT EXISTS ${t.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    applied: `SELECT coalesce(max(version), 0) AS version FROM ${t.migrations}`,
    record: `INSERT INTO ${t.migrations} (version) VALUES ($1)`,
  };
}
