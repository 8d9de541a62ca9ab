import type net from 'node:net';
import pg from 'pg';
import { backendOf, endLeft, type Backend } from './postgres-left.js';
import { migrations, migrationScript } from './postgres-schema.js';
import { fleetStatements } from './postgres-statements.js';
import { libpqUrl } from './postgres-url.js';
import { commitBatch, sqlState } from './postgres-transaction.js';
import { SinkRejection, type PostgresSinkSpec, type Sink } from './sink.js';

// The PostgreSQL sink: one transaction per batch: the month partitions it needs, one INSERT ...
// SELECT FROM unnest(lines) keyed by (unit, stream, seq) with ON CONFLICT DO NOTHING (a batch
// sent again after a crash or a retry leaves each event exactly once), the unit's current rows
// and its line in the units table. The tables are created (migrated) on connect.
// Each row keeps the envelope line exactly (`line`) beside its jsonb `data` and `meta`; a batch
// jsonb refuses (\u0000, a lone surrogate, a number beyond numeric) is sent again with the
// lenient statement, which stores such a line with NULL data and meta instead of refusing it.

// SQLSTATE classes that refuse the rows themselves: 22 data exception, 23 integrity constraint
// violation. Anything else (connection, shutdown, locks) may pass later.
const REFUSING_CLASSES = new Set(['22', '23']);
// SQLSTATEs the server answers a statement it ended itself with (lock_timeout, statement_timeout, a
// deadlock, a serialization failure): the transaction is rolled back, the connection stays good
const CONNECTION_KEPT = new Set(['55P03', '57014', '40P01', '40001']);

/**
 * A sink inserting the records of unit `unit` into `spec.table` of the database at `spec.url`;
 * `instance` names this daemon's run (two daemons with one unit id are told apart by it).
 */
export function postgresSink(spec: PostgresSinkSpec, unit: string, instance: string): Sink {
  const statements = fleetStatements(spec.table);
  // the months whose partition this connection knows exists
  const months = new Set<string>();
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  // the client being connected, so that a stop can cut a connection attempt that hangs
  let opening: pg.Client | undefined;
  // whether this sink wrote the unit's units row before: found gone later, it was retired meanwhile
  let wroteUnit = false;
  let reset: () => void = () => undefined;
  // the server processes (pid and start) of connections this sink gave up on: the next connection
  // ends them first (postgres-left.ts); a connection given up before its backend was known ran no
  // statement of ours that could hold a lock
  const left = new Map<number, Backend>();
  const backends = new WeakMap<pg.Client, Backend>();

  const drop = (c: pg.Client) => {
    if (client === c) client = undefined;
    const backend = backends.get(c);
    if (backend) left.set(backend.pid, backend);
    socketOf(c)?.destroy();
  };
  const connect = async (): Promise<pg.Client> => {
    // the server itself ends a statement waiting past the timeout (a lock held on the table): nothing
    // is left waiting there; the client's own timer is the backstop
    const c = new pg.Client({
      connectionString: libpqUrl(withPassword(spec.url, spec.password), 'url'), connectionTimeoutMillis: spec.timeoutMs,
      statement_timeout: spec.timeoutMs, lock_timeout: spec.timeoutMs, query_timeout: spec.timeoutMs + 1000,
      keepAlive: true, application_name: 'meridian-forward',
    });
    // a connection lost between batches is reported here; the next send reconnects
    c.on('error', () => drop(c));
    opening = c;
    try {
      await c.connect();
      backends.set(c, await backendOf(c));
      await endLeft(c, left, spec.timeoutMs);
      await migrate(c, spec.table, unit);
      months.clear();
    } catch (error) {
      drop(c);
      throw error;
    } finally {
      opening = undefined;
    }
    client = c;
    return c;
  };

  return {
    async send(records, signal, extra) {
      const cut = () => { if (opening) drop(opening); };
      signal.addEventListener('abort', cut, { once: true });
      const c = await (client ? Promise.resolve(client) : (connecting ??= connect().finally(() => { connecting = undefined; })))
        .finally(() => signal.removeEventListener('abort', cut));
      const onAbort = () => drop(c);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const inserted = await commitBatch(c, { statements, unit, instance, lockKey: `${spec.table} partitions`, records, extra }, months);
        // the row gone since (`telemetry fleet retire` while the unit was paused): its current rows went with it, the whole view again
        if (inserted === true && wroteUnit && extra?.wholeView !== true) reset();
        if (inserted !== undefined) wroteUnit = true;
      } catch (error) {
        // a clash with another daemon's event (postgres-transaction.ts): the connection is fine
        if (error instanceof SinkRejection) throw error;
        const code = sqlState(error);
        if (code !== undefined && REFUSING_CLASSES.has(code.slice(0, 2))) {
          throw new SinkRejection(`PostgreSQL refused the row: ${(error as Error).message} (SQLSTATE ${code})`, { cause: error });
        }
        if (code === undefined || !CONNECTION_KEPT.has(code) || signal.aborted) drop(c);
        throw error;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    onPeerReset(listener) {
      reset = listener;
    },
    async close() {
      if (opening) drop(opening);
      const c = client;
      client = undefined;
      if (!c) return;
      // end() says goodbye to a live server; the socket is destroyed if it does not answer at once
      const timer = setTimeout(() => socketOf(c)?.destroy(), 500);
      await c.end().catch(() => undefined);
      clearTimeout(timer);
    },
  };
}

async function migrate(c: pg.Client, table: string, unit: string): Promise<void> {
  const script = migrationScript(table);
  const steps = migrations(table, unit);
  await c.query('BEGIN');
  try {
    await c.query(script.lock, [table]);
    await c.query(script.prepare);
    const { rows } = await c.query<{ version: number }>(script.applied);
    for (let v = rows[0]!.version + 1; v <= steps.length; v++) {
      await c.query(steps[v - 1]!);
      await c.query(script.record, [v]);
    }
    await c.query('COMMIT');
  } catch (error) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

// pg lets the connection string's (empty) password win over a `password` option: put it in the URL
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.toString();
}

// pg keeps its socket on `connection.stream`; destroying it ends a connection that hangs
function socketOf(c: pg.Client): net.Socket | undefined {
  return (c as unknown as { connection?: { stream?: net.Socket } }).connection?.stream;
}
