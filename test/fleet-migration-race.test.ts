import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { migrations } from '../daemon/forward/postgres-schema.js';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { removeDir } from './helpers/tmp.js';

// The migration race (hostile H, issue 27, finding 8f): several units of this version starting at
// once against a table an earlier version made (migrations 1 and 2, 20,000 rows: migration 3
// moves them, which takes a while). The migrations run in one transaction under an advisory lock
// (postgres-schema.ts), so one unit migrates, the others wait for it and find the work done: each
// migration recorded once, the old rows moved once and given ONE unit's id (which one is the
// first to take the lock: docs/fleet.md), and no unit's sink sees a failed delivery.

let db: TestPostgres;
test.before(async () => { db = await startPostgres(); });
test.after(() => db.remove());

const OLD_ROWS = 20_000;
const UNITS = ['race-a', 'race-b', 'race-c', 'race-d'];

test('four units starting at once against an old table: migrated once, the old rows once under one unit, no sink failed', async () => {
  const [one, two] = migrations('shared', 'unused');
  await db.query(`${one!}; ${two!};
    CREATE TABLE shared_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
    INSERT INTO shared_migrations (version) VALUES (1), (2);
    INSERT INTO shared (stream, seq, ts, type, data, meta, line)
      SELECT 'site', s, '2026-01-01T00:00:00Z'::timestamptz + s * interval '1 s', 'weather', to_jsonb(s), '{}', NULL FROM generate_series(1, ${OLD_ROWS}) AS s`);
  const sink = `[[sink]]\nname = "db"\nurl = "${db.url}"\ntable = "shared"\n${QUICK.replace('timeout_ms = 3000', 'timeout_ms = 60000')}`;
  // a PostgreSQL sink connects (and migrates) as it starts: all four at once
  const units = await Promise.all(UNITS.map((unitId) => startTestDaemon({ flags: { unitId }, forward: sinksOf(sink) })));
  try {
    await Promise.all(units.map((d) => postEvent(d.url, { type: 'dome', data: 'open' })));
    const status = await Promise.all(units.map((d) => caughtUp(d.url, 'db', 60_000)));
    assert.equal(status.map((s) => [s.state, s.retries, s.last_error, s.dead_letters, s.delivered]), UNITS.map(() => ['ok', 0, null, 0, 1]), 'no sink failed');
    assert.equal(await db.query('SELECT version FROM shared_migrations ORDER BY version'), [{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]);
    const old = await db.query<{ unit: string; n: number; seqs: number }>(`SELECT unit, count(*)::int AS n, count(DISTINCT seq)::int AS seqs FROM shared
      WHERE ts < '2026-02-01' GROUP BY unit`);
    assert.is(old.length, 1, 'the old rows under one unit');
    assert.ok(UNITS.includes(old[0]!.unit), old[0]!.unit);
    assert.equal([old[0]!.n, old[0]!.seqs], [OLD_ROWS, OLD_ROWS]);
    const fresh = await db.query(`SELECT unit, seq::int AS seq, type FROM shared WHERE ts >= '2026-02-01' ORDER BY unit`);
    assert.equal(fresh, UNITS.map((unit) => ({ unit, seq: 1, type: 'dome' })));
    assert.equal(await db.query(`SELECT unit FROM shared_units ORDER BY unit`), UNITS.map((unit) => ({ unit })));
  } finally {
    await Promise.all(units.map(async (d) => { await d.close(); removeDir(d.siteDir); }));
  }
});

test.run();
