import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { migrations } from '../daemon/forward/postgres-schema.js';
import { startTestDaemon, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, QUICK, sinksOf, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { removeDir } from './helpers/tmp.js';

// A fleet on a real PostgreSQL 15 (issue 27): events keyed (unit, stream, seq) in monthly
// partitions, a current table (unit, type) that equals each unit's GET /current, a units
// table; a table made by the code before is migrated in place; after an outage the current
// view arrives before the backlog, then the backlog with nothing missing and nothing twice.

let pg: TestPostgres;
test.before(async () => { pg = await startPostgres(); });
test.after(() => pg.remove());

const SINK = (table: string) => `[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "${table}"\n${QUICK}`;

/** The unit's /current as envelopes by type. */
async function currentOf(d: TestDaemon): Promise<Record<string, unknown>> {
  return (await request(d.url, '/current')).json.current as Record<string, unknown>;
}

/** The unit's current rows as envelopes by type (parsed from the exact line). */
async function currentRows(table: string, unit: string): Promise<Record<string, unknown>> {
  const rows = await pg.query<{ type: string; line: string }>(`SELECT type, line FROM ${table}_current WHERE unit = $1 ORDER BY type`, [unit]);
  return Object.fromEntries(rows.map((r) => [r.type, JSON.parse(r.line)]));
}

const TABLES: [string, string, string][] = [
  // [name, table as configured, its partitions' schema]
  ['a table in the default schema', 'legacy', 'public'],
  ['a table in a schema of the unit', 'unit1.events', 'unit1'],
];

for (const [name, table, schema] of TABLES) {
  test(`a table made by the code before (migrations 1 and 2) is migrated in place: ${name}`, async () => {
    if (schema !== 'public') await pg.query(`CREATE SCHEMA ${schema}`);
    // the tables exactly as the code before made them, with two rows of January
    const [one, two] = migrations(table, 'unused');
    await pg.query(`${one!}; ${two!}; CREATE TABLE ${table}_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
      INSERT INTO ${table}_migrations (version) VALUES (1), (2);
      INSERT INTO ${table} (stream, seq, ts, type, data, meta, line) VALUES
        ('site', 41, '2026-01-31T23:59:59.999Z', 'x', '1', '{}', '{"seq":41,"ts":"2026-01-31T23:59:59.999Z","type":"x","data":1,"meta":{}}'),
        ('007', 7, '2026-02-01T00:00:00.000Z', 'y', '2', '{}', NULL)`);
    await withTestDaemon({ flags: { unitId: 'pan012' }, forward: sinksOf(SINK(table)) }, async (d) => {
      const sent = (await postEvent(d.url, { type: 'z', data: 3, ts: '2026-03-05T12:00:00Z' })).json;
      await caughtUp(d.url, 'db');
      const rows = await pg.query(`SELECT unit, stream, seq::int AS seq, type, ts FROM ${table} ORDER BY ts`);
      assert.equal(rows.map((r) => ({ ...r, ts: (r.ts as Date).toISOString() })), [
        { unit: 'pan012', stream: 'site', seq: 41, type: 'x', ts: '2026-01-31T23:59:59.999Z' },
        { unit: 'pan012', stream: '007', seq: 7, type: 'y', ts: '2026-02-01T00:00:00.000Z' },
        { unit: 'pan012', stream: 'site', seq: sent.seq, type: 'z', ts: '2026-03-05T12:00:00.000Z' },
      ]);
      const bare = table.split('.').pop()!;
      const partitions = await pg.query<{ name: string; schema: string }>(`SELECT c.relname AS name, n.nspname AS schema FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE i.inhparent = '${table}'::regclass ORDER BY 1`);
      assert.equal(partitions, ['202601', '202602', '202603'].map((m) => ({ name: `${bare}_p${m}`, schema })), 'one partition a month, in UTC');
      // the current table: what the unit's /current holds (the migrated rows' newest was replaced)
      assert.equal(await currentRows(table, 'pan012'), await currentOf(d));
      const units = await pg.query(`SELECT unit, version, lag_events::int AS lag FROM ${table}_units`);
      assert.equal(units, [{ unit: 'pan012', version: (await request(d.url, '/ready')).json.version, lag: 0 }]);
      assert.equal(await pg.query(`SELECT version FROM ${table}_migrations ORDER BY version`), [{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
    });
  });
}

test('the earlier recipe\'s views over a unit\'s tables stop the migration, named in /status, until they are dropped; nothing is lost', async () => {
  await pg.query('CREATE SCHEMA unit9');
  const [one, two] = migrations('unit9.events', 'unused');
  await pg.query(`${one!}; ${two!}; CREATE TABLE unit9.events_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
    INSERT INTO unit9.events_migrations (version) VALUES (1), (2);
    CREATE VIEW all_current AS SELECT 'unit9' AS unit, * FROM unit9.events_current`);
  await withTestDaemon({ flags: { unitId: 'unit9' }, forward: sinksOf(SINK('unit9.events')) }, async (d) => {
    await postEvent(d.url, { type: 'weather', data: 1 });
    const stuck = await failing(d.url, 'db');
    assert.match(stuck.last_error ?? '', /^cannot drop view unit9\.events_current because other objects depend on it \(2BP01\)$/);
    await pg.query('DROP VIEW all_current');
    await caughtUp(d.url, 'db');
    assert.equal(await pg.query('SELECT unit, seq::int AS seq FROM unit9.events'), [{ unit: 'unit9', seq: 1 }]);
  });
});

test('two units in one table: rows apart by unit, each unit\'s current rows its own /current; a batch sent again adds nothing', async () => {
  const units = await Promise.all(['dome-a', 'dome-b'].map((unitId) => startTestDaemon({ flags: { unitId }, forward: sinksOf(SINK('shared')) })));
  try {
    for (const [i, d] of units.entries()) {
      for (let n = 1; n <= 30; n++) await postEvent(d.url, { type: n % 3 ? 'weather' : 'dome', data: { n, unit: i } });
      await postEvent(d.url, { type: 'wind', data: i, store_permanently: false });
      await postEvent(d.url, { type: 'weather', data: 'not current', make_current: false });
    }
    await Promise.all(units.map((d) => caughtUp(d.url, 'db')));
    // a unit's site seqs are the same numbers as the other's: both kept, apart by unit
    const counts = await pg.query('SELECT unit, count(*)::int AS n, min(seq)::int AS low, max(seq)::int AS high FROM shared GROUP BY unit ORDER BY unit');
    assert.equal(counts, [{ unit: 'dome-a', n: 31, low: 1, high: 32 }, { unit: 'dome-b', n: 31, low: 1, high: 32 }]);
    for (const [i, d] of units.entries()) {
      await waitFor('current rows', async () => {
        const rows = await currentRows('shared', ['dome-a', 'dome-b'][i]!);
        return JSON.stringify(rows) === JSON.stringify(await currentOf(d)) ? true : undefined;
      });
    }
    // the same rows again (a replay after a crash): nothing changes
    await pg.query(`INSERT INTO shared SELECT * FROM shared ON CONFLICT (unit, stream, seq, ts) DO NOTHING`);
    assert.equal(await pg.query('SELECT count(*)::int AS n FROM shared'), [{ n: 62 }]);
  } finally {
    await Promise.all(units.map(async (d) => { await d.close(); removeDir(d.siteDir); }));
  }
});

test('fresh first: after the database was down, the unit\'s whole current view is committed before any event of the backlog, then the backlog in seq order, each once', async () => {
  await withTestDaemon({ flags: { unitId: 'u1' }, forward: sinksOf(SINK('fresh')) }, async (d) => {
    for (let n = 1; n <= 10; n++) await postEvent(d.url, { type: 'weather', data: n });
    await caughtUp(d.url, 'db');
    // every row the sink writes, in commit order, with its transaction
    await pg.query(`CREATE TABLE arrivals (n bigserial, tx bigint, kind text, type text, seq bigint);
      CREATE FUNCTION arrived() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN
        INSERT INTO arrivals (tx, kind, type, seq) VALUES (txid_current(), TG_ARGV[0], NEW.type, NEW.seq); RETURN NEW; END$$;
      CREATE TRIGGER events_arrived AFTER INSERT ON fresh FOR EACH ROW EXECUTE FUNCTION arrived('event');
      CREATE TRIGGER current_arrived AFTER INSERT OR UPDATE ON fresh_current FOR EACH ROW EXECUTE FUNCTION arrived('current')`);
    pg.stop();
    try {
      const lines = Array.from({ length: 600 }, (_, i) => JSON.stringify({ type: ['weather', 'dome', 'mount'][i % 3], data: 11 + i }));
      assert.is((await request(d.url, '/events', { body: `${lines.join('\n')}\n`, headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
      await postEvent(d.url, { type: 'wind', data: 4, store_permanently: false });
      await failing(d.url, 'db');
    } finally {
      pg.start();
    }
    await caughtUp(d.url, 'db');
    const arrivals = await pg.query<{ tx: string; kind: string; type: string; seq: string }>('SELECT tx, kind, type, seq FROM arrivals ORDER BY n');
    const firstTx = arrivals[0]!.tx;
    const first = arrivals.filter((a) => a.tx === firstTx);
    assert.equal(first.map((a) => [a.kind, a.type, Number(a.seq)]).sort(), [['current', 'dome', 609], ['current', 'mount', 610], ['current', 'weather', 608], ['current', 'wind', 611]],
      'the first transaction: the whole view, no event');
    const events = arrivals.filter((a) => a.kind === 'event').map((a) => Number(a.seq));
    assert.equal(events, Array.from({ length: 600 }, (_, i) => 11 + i), 'the backlog after it, in seq order, each once');
    // the current rows never went back in time while the older backlog arrived
    const later = arrivals.filter((a) => a.kind === 'current' && a.tx !== firstTx);
    assert.equal(later, [], 'no current row rewritten by the backlog');
    assert.equal(await currentRows('fresh', 'u1'), await currentOf(d));
  });
});

test.run();
