// The PostgreSQL sink's schema and its migrations (docs/forwarding.md shows the result).
// Each migration runs once, in order, in one transaction holding an advisory lock, so
// several units starting at once against a central database apply it exactly once.

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
    events: `${schema}"${table}"`,
    current: `${schema}"${table}_current"`,
    migrations: `${schema}"${table}_migrations"`,
    index: `"${table}_type_ts"`,
    toJsonb: `${schema}"${table}_jsonb"`,
    lockKey: name,
  };
}

/** The migrations, oldest first: version n is MIGRATIONS[n - 1]. */
export function migrations(name: string): string[] {
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
  ];
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

/**
 * The statement that inserts one batch: $1 the stream, $2 the envelope lines, $3 their seqs, $4 their ts,
 * $5 their types. `lenient`: a line jsonb refuses is stored with NULL data and meta (a function
 * catching the error, slower: used only after the plain statement was refused). Replays change nothing.
 */
export function insertStatement(name: string, lenient: boolean): string {
  const t = tableNames(name);
  const parse = lenient ? `${t.toJsonb}(u.line)` : 'u.line::jsonb';
  return `INSERT INTO ${t.events} (stream, seq, ts, type, data, meta, line)
    SELECT $1, u.seq, u.ts::timestamptz, u.type, x.e->'data', CASE WHEN x.e IS NOT NULL THEN coalesce(x.e->'meta', '{}') END, u.line
    FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[]) AS u(line, seq, ts, type)
    CROSS JOIN LATERAL (SELECT ${parse} AS e) AS x
    ON CONFLICT (stream, seq) DO NOTHING`;
}
