import type net from 'node:net';
import pg from 'pg';
import { migrations, migrationScript } from './postgres-schema.js';
import { fleetStatements, monthsOf, type FleetStatements } from './postgres-statements.js';
import type { ForwardRecord } from './record.js';
import { SinkRejection, type PostgresSinkSpec, type SendExtra, type Sink } from './sink.js';

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

/** A sink inserting the records of unit `unit` into `spec.table` of the database at `spec.url`. */
export function postgresSink(spec: PostgresSinkSpec, unit: string): Sink {
  const statements = fleetStatements(spec.table);
  // the months whose partition this connection knows exists
  let months = new Set<string>();
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  // the client being connected, so that a stop can cut a connection attempt that hangs
  let opening: pg.Client | undefined;

  const drop = (c: pg.Client) => {
    if (client === c) client = undefined;
    socketOf(c)?.destroy();
  };
  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({
      connectionString: withPassword(spec.url, spec.password), connectionTimeoutMillis: spec.timeoutMs,
      query_timeout: spec.timeoutMs, keepAlive: true, application_name: 'meridian-forward',
    });
    // a connection lost between batches is reported here; the next send reconnects
    c.on('error', () => drop(c));
    opening = c;
    try {
      await c.connect();
      await migrate(c, spec.table, unit);
      months = new Set();
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
        const fresh = monthsOf(records.map((r) => r.ts)).filter((m) => !months.has(m));
        const batch = { statements, unit, lockKey: `${spec.table} partitions`, records, months: fresh, extra };
        await transaction(c, batch, false).catch((error: unknown) => {
          if (sqlState(error)?.startsWith('22')) return transaction(c, batch, true);
          throw error;
        });
        for (const m of fresh) months.add(m);
      } catch (error) {
        const code = sqlState(error);
        if (code !== undefined && REFUSING_CLASSES.has(code.slice(0, 2))) {
          throw new SinkRejection(`PostgreSQL refused the row: ${(error as Error).message} (SQLSTATE ${code})`, { cause: error });
        }
        drop(c);
        throw error;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
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

// the SQLSTATE of a PostgreSQL error
function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

interface Batch {
  statements: FleetStatements;
  unit: string;
  lockKey: string;
  records: readonly ForwardRecord[];
  /** Months of the batch whose partition may not exist yet. */
  months: string[];
  extra: SendExtra | undefined;
}

// One batch as one transaction: partitions, rows, current rows, the unit's line. Any failure
// rolls it all back (a connection lost mid-way leaves nothing: the batch is sent again).
async function transaction(c: pg.Client, b: Batch, lenient: boolean): Promise<void> {
  const { statements: s, records, extra } = b;
  await c.query('BEGIN');
  try {
    if (b.months.length > 0) {
      await c.query(s.partitionLock, [b.lockKey]);
      await c.query(s.partitions, [b.months]);
    }
    if (records.length > 0) {
      const stream = records[0]!.stream;
      await c.query(s.insert(lenient), [b.unit, stream, records.map((r) => r.line), records.map((r) => r.seq), records.map((r) => r.ts), records.map((r) => r.type)]);
    }
    const current = extra?.current ?? [];
    if (extra?.wholeView === true) await c.query(s.notCurrent, [b.unit, current.map((r) => r.type)]);
    if (current.length > 0) {
      await c.query(s.current, [b.unit, current.map((r) => r.type), current.map((r) => r.stream), current.map((r) => r.seq), current.map((r) => r.ts), current.map((r) => r.line)]);
    }
    const newest = records.length > 0 ? records[records.length - 1]!.ts : null;
    await c.query(s.unit, [b.unit, extra?.version ?? null, extra?.lag?.events ?? 0, extra?.lag?.seconds ?? 0, newest]);
    await c.query('COMMIT');
  } catch (error) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
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
