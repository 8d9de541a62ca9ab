import type pg from 'pg';

// The server processes (backends) of connections the PostgreSQL sink gave up on: a statement of
// theirs may still wait on a lock until its statement_timeout, so the next connection ends them
// first. A backend is named by its pid AND its start: a pid alone may have been reused by
// PostgreSQL for another session of the same user once the old backend exited, and that session
// must not be ended.

/** One backend: its pid and `backend_start` in microseconds since the epoch (text: exact). */
export interface Backend {
  pid: number;
  start: string;
}

/** The backend of a connection just opened (one round trip after connect). */
export async function backendOf(c: pg.Client): Promise<Backend> {
  const { rows } = await c.query<{ pid: number; start: string }>(`SELECT pid, ${START} AS start FROM pg_stat_activity WHERE pid = pg_backend_pid()`);
  return { pid: rows[0]!.pid, start: rows[0]!.start };
}

/**
 * End the backends of `left` still running as they were (same pid, same start, same user), then
 * forget them; one whose pid now belongs to another session is left alone. A failure here is left
 * to statement_timeout, which ends them anyway.
 */
export async function endLeft(c: pg.Client, left: Map<number, Backend>, timeoutMs: number): Promise<void> {
  if (left.size === 0) return;
  const backends = [...left.values()];
  left.clear();
  await c.query(`SELECT pg_terminate_backend(a.pid, $3) FROM pg_stat_activity a
    JOIN unnest($1::int[], $2::text[]) AS l(pid, start) ON a.pid = l.pid AND ${START.replace('backend_start', 'a.backend_start')} = l.start
    WHERE a.usename = current_user AND a.pid <> pg_backend_pid()`,
  [backends.map((b) => b.pid), backends.map((b) => b.start), timeoutMs]).catch(() => undefined);
}

// backend_start as exact text, whatever the session's TimeZone and DateStyle
const START = `(extract(epoch FROM backend_start) * 1000000)::bigint::text`;
