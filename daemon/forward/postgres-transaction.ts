import type pg from 'pg';
import { monthsOf, type FleetStatements } from './postgres-statements.js';
import type { ForwardRecord } from './record.js';
import { SinkRejection, type SendExtra } from './sink.js';

// One batch of the PostgreSQL sink as one transaction: the partitions of its months, its rows,
// the unit's current rows and its units row. Any failure rolls it all back (a connection lost
// or the database failing mid-way leaves nothing: the batch is sent again). Only the rows
// themselves can be refused for good (a dead letter): a failure of the current or units rows
// is one that may pass, so no record is ever dead-lettered for it.

/** What one transaction writes. */
export interface Batch {
  statements: FleetStatements;
  unit: string;
  /** This daemon's run: the units row tells two daemons with one unit id apart by it. */
  instance: string;
  lockKey: string;
  records: readonly ForwardRecord[];
  extra: SendExtra | undefined;
}

/** The SQLSTATE of a PostgreSQL error. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Commit a batch; resolves whether its transaction inserted the unit's units row anew (undefined:
 * the batch wrote no units row). `months`: the months whose partition this connection knows exists (those of
 * the batch are added once it committed). A row jsonb refuses (class 22) is sent again with the
 * lenient statement; a row with no partition (23514: a month dropped by retention since this
 * connection saw it) is sent again with every month of the batch made sure of.
 */
export async function commitBatch(c: pg.Client, b: Batch, months: Set<string>): Promise<boolean | undefined> {
  const all = monthsOf(b.records.map((r) => r.ts));
  let inserted: boolean | undefined;
  try {
    inserted = await attempt(c, b, all.filter((m) => !months.has(m)), false);
  } catch (error) {
    const code = sqlState(error);
    if (code === '23514') inserted = await attempt(c, b, all, false);
    else if (code?.startsWith('22')) inserted = await attempt(c, b, all.filter((m) => !months.has(m)), true);
    else throw error;
  }
  for (const m of all) months.add(m);
  return inserted;
}

async function attempt(c: pg.Client, b: Batch, months: readonly string[], lenient: boolean): Promise<boolean | undefined> {
  const { statements: s, records, extra } = b;
  const insert = async () => {
    const lines = records.map((r) => r.line);
    const seqs = records.map((r) => r.seq);
    const tss = records.map((r) => r.ts);
    const taken = await c.query(s.insert(lenient), [b.unit, records[0]!.stream, lines, seqs, tss, records.map((r) => r.type)]);
    if (taken.rowCount !== records.length) await refuseClashes(c, b, lines, seqs, tss);
  };
  // only rows to write (a batch while catching up): one statement, a transaction of its own
  if (months.length === 0 && records.length > 0 && (extra?.current ?? []).length === 0 && !extra?.wholeView && extra?.unitRow === false) {
    await insert();
    return undefined;
  }
  await c.query('BEGIN');
  try {
    if (months.length > 0) {
      await c.query(s.partitionLock, [b.lockKey]);
      await c.query(s.partitions, [months]);
    }
    if (records.length > 0) await insert();
    const inserted = await unitRows(c, b).catch((error: unknown) => {
      // the records were taken: this may pass (a lock, a constraint an operator added)
      const code = sqlState(error);
      throw new Error(`the unit's current or units rows failed: ${(error as Error).message}${code ? ` (SQLSTATE ${code})` : ''}`);
    });
    await c.query('COMMIT');
    return inserted;
  } catch (error) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

// rows left out whose key the table holds with ANOTHER line: another daemon with this unit id
// sent them first. Refused for good (the forwarder splits the batch down to the record and
// keeps it in the dead-letter file); a row held with the same line is a retry, left out silently.
async function refuseClashes(c: pg.Client, b: Batch, lines: string[], seqs: number[], tss: string[]): Promise<void> {
  const stream = b.records[0]!.stream;
  const { rows } = await c.query<{ seq: string }>(b.statements.clashes, [b.unit, stream, lines, seqs, tss]);
  if (rows.length === 0) return;
  const first = b.records.find((r) => String(r.seq) === rows[0]!.seq)!;
  throw new SinkRejection(`the table already holds another event at ${stream}:${first.seq} (ts ${first.ts}) of unit "${b.unit}": `
    + `another daemon forwards with unit id "${b.unit}"; give each unit its own --unit-id`);
}

// the unit's current rows (a whole view replaces them all, forced: the unit's own now) and its units row (unless not
// due); whether that row was inserted anew (undefined: not written)
async function unitRows(c: pg.Client, b: Batch): Promise<boolean | undefined> {
  const { statements: s, records, extra } = b;
  const current = extra?.current ?? [];
  if (extra?.wholeView === true) await c.query(s.notCurrent, [b.unit, current.map((r) => r.type)]);
  if (current.length > 0) {
    await c.query(s.current(extra?.wholeView === true), [b.unit, current.map((r) => r.type), current.map((r) => r.stream), current.map((r) => r.seq),
      current.map((r) => r.ts), current.map((r) => r.line)]);
  }
  if (extra?.unitRow === false) return undefined;
  const newest = records.length > 0 ? records[records.length - 1]!.ts : null;
  const alarms = extra?.alarms ?? null;
  const { rows } = await c.query<{ inserted: boolean }>(s.unit, [b.unit, extra?.version ?? null, extra?.lag?.events ?? 0, extra?.lag?.seconds ?? 0, newest, b.instance, extra?.unitNowMs ?? null,
    alarms?.severity ?? null, alarms?.unacked ?? null, alarms?.id ?? null, alarms ? extra?.unitNowMs ?? null : null]);
  return rows[0]?.inserted === true;
}
