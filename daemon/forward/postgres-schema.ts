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

/** The statement that inserts one batch: $1 the stream, $2 a JSON array of envelopes. Replays change nothing. */
export function insertStatement(name: string): string {
  return `INSERT INTO ${tableNames(name).events} (stream, seq, ts, type, data, meta)
    SELECT $1, (e->>'seq')::bigint, (e->>'ts')::timestamptz, e->>'type', e->'data', coalesce(e->'meta', '{}')
    FROM jsonb_array_elements($2::jsonb) AS e
    ON CONFLICT (stream, seq) DO NOTHING`;
}
