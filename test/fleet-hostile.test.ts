import { performance } from 'node:perf_hooks';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { startTestDaemon, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { caughtUp, dayFile, QUICK, sinksOf, sinkStatus, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// What a hostile tester tries against a fleet (issue 27): two daemons with one unit id, a unit's
// clock far off, the database failing mid-transaction, a month's partition dropped under a
// connected unit, a unit whose site directory started afresh.

let pg: TestPostgres;
test.before(async () => { pg = await startPostgres(); });
test.after(() => pg.remove());

const SINK = (table: string) => `[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "${table}"\n${QUICK}`;

async function currentAgrees(d: TestDaemon, table: string, unit: string): Promise<boolean> {
  const view = (await request(d.url, '/current')).json.current as Record<string, unknown>;
  const rows = await pg.query<{ type: string; line: string }>(`SELECT type, line FROM ${table}_current WHERE unit = $1 ORDER BY type`, [unit]);
  return JSON.stringify(Object.keys(view).sort().map((k) => [k, view[k]])) === JSON.stringify(rows.map((r) => [r.type, JSON.parse(r.line)]));
}

test('two daemons with one unit id taking turns are named: the units row says when, `telemetry fleet` shows the unit as duplicate; one restart is not', async () => {
  const dirs = [tempDir(), tempDir()];
  const open = (siteDir: string) => startTestDaemon({ siteDir, flags: { unitId: 'twin' }, forward: sinksOf(SINK('twins')) });
  const turn = async (siteDir: string) => {
    const d = await open(siteDir);
    try {
      await postEvent(d.url, { type: 'weather', data: siteDir });
      await caughtUp(d.url, 'db');
    } finally {
      await d.close();
    }
  };
  try {
    // one unit restarted: a new instance once, no alarm
    await turn(dirs[0]!);
    await turn(dirs[0]!);
    assert.equal(await pg.query('SELECT duplicate_at FROM twins_units'), [{ duplicate_at: null }]);
    // another daemon with the same id, then the first again: they take turns
    const a = await open(dirs[0]!);
    const b = await open(dirs[1]!);
    try {
      for (const d of [b, a, b]) {
        await postEvent(d.url, { type: 'weather', data: d.siteDir });
        await caughtUp(d.url, 'db');
      }
      const units = await pg.query<{ flagged: boolean }>('SELECT duplicate_at IS NOT NULL AS flagged FROM twins_units');
      assert.equal(units, [{ flagged: true }]);
      const run = await cli(['fleet', '--db', pg.url, '--table', 'twins', '--json']);
      assert.equal(JSON.parse(run.stdout).map((u: { unit: string; state: string }) => [u.unit, u.state]), [['twin', 'duplicate']]);
      assert.is(run.code, 0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  } finally {
    for (const dir of dirs) removeDir(dir);
  }
});

test('the database failing mid-transaction (the rows in, the unit\'s current row refused twice): rolled back and sent again, each event once, no dead letter', async () => {
  await withTestDaemon({ flags: { unitId: 'u1' }, forward: sinksOf(SINK('midway')) }, async (d) => {
    await postEvent(d.url, { type: 'weather', data: 0 });
    await caughtUp(d.url, 'db');
    await pg.query(`CREATE SEQUENCE fail_turns;
      CREATE FUNCTION fail_twice() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN
        IF nextval('fail_turns') <= 2 THEN RAISE EXCEPTION 'disk on fire' USING ERRCODE = '23514'; END IF; RETURN NEW; END$$;
      CREATE TRIGGER current_fail BEFORE INSERT OR UPDATE ON midway_current FOR EACH ROW EXECUTE FUNCTION fail_twice()`);
    let last = 0;
    for (let i = 1; i <= 120; i++) last = (await postEvent(d.url, { type: i % 2 ? 'weather' : 'dome', data: i })).json.seq as number;
    const status = await caughtUp(d.url, 'db');
    assert.equal([status.dead_letters, status.retries >= 2], [0, true]);
    assert.match(status.last_error ?? '', /^the unit's current or units rows failed: disk on fire \(SQLSTATE 23514\)$/);
    // every seq once up to the last posted one (on a loaded machine the daemon may record a
    // stale and fresh turn of a learned limit among them: seqs of their own, counted apart)
    assert.equal(await pg.query(`SELECT count(*)::int AS n, count(DISTINCT seq)::int AS once, min(seq)::int AS low, max(seq)::int AS high,
      count(*) FILTER (WHERE type IN ('weather', 'dome'))::int AS posted FROM midway WHERE seq <= ${last}`),
      [{ n: last, once: last, low: 1, high: last, posted: 121 }]);
    assert.ok(await currentAgrees(d, 'midway', 'u1'));
  });
});

test('a month\'s partition dropped by retention under a connected unit: made again for its rows, nothing dead-lettered', async () => {
  await withTestDaemon({ flags: { unitId: 'u1' }, forward: sinksOf(SINK('dropped')) }, async (d) => {
    await postEvent(d.url, { type: 'weather', data: 1 });
    await caughtUp(d.url, 'db');
    const [{ part }] = await pg.query<{ part: string }>(`SELECT inhrelid::regclass::text AS part FROM pg_inherits WHERE inhparent = 'dropped'::regclass`);
    await pg.query(`ALTER TABLE dropped DETACH PARTITION ${part}; DROP TABLE ${part}`);
    await postEvent(d.url, { type: 'weather', data: 2 });
    const status = await caughtUp(d.url, 'db');
    assert.is(status.dead_letters, 0);
    assert.equal(await pg.query('SELECT seq::int AS seq FROM dropped'), [{ seq: 2 }]);
    assert.equal(await pg.query(`SELECT inhrelid::regclass::text AS part FROM pg_inherits WHERE inhparent = 'dropped'::regclass`), [{ part }]);
  });
});

test('a unit\'s clock 30 years ahead: its rows in the months of its clock, its current rows its /current, never silent by the database\'s clock', async () => {
  const ahead = 30 * 365.25 * 86_400_000;
  const clock = { now: () => Date.now() + ahead, monotonic: () => performance.now() };
  await withTestDaemon({ clock, flags: { unitId: 'fast' }, forward: sinksOf(SINK('skewed')) }, async (d) => {
    const sent = (await postEvent(d.url, { type: 'weather', data: 1 })).json;
    await caughtUp(d.url, 'db');
    const month = (sent.ts as string).slice(0, 7).replace('-', '');
    assert.equal(await pg.query(`SELECT inhrelid::regclass::text AS part FROM pg_inherits WHERE inhparent = 'skewed'::regclass`), [{ part: `skewed_p${month}` }]);
    assert.ok(await currentAgrees(d, 'skewed', 'fast'));
    const run = await cli(['fleet', '--db', pg.url, '--table', 'skewed', '--json']);
    const [unit] = JSON.parse(run.stdout);
    assert.equal([unit.state, unit.newest_ts === sent.ts, run.code], ['ok', true, 0]);
  });
});

test('a unit whose site directory started afresh (its seqs from 1 again): its whole view replaces its current rows at the first contact', async () => {
  await withTestDaemon({ flags: { unitId: 'reborn' }, forward: sinksOf(SINK('reborn')) }, async (d) => {
    for (let i = 1; i <= 10; i++) await postEvent(d.url, { type: 'a', data: i });
    await caughtUp(d.url, 'db');
  });
  // the new site directory already holds a reading of the same type, at a lower seq
  const siteDir = tempDir();
  dayFile(siteDir, '20260310', 1, 1);
  await withTestDaemon({ siteDir, flags: { unitId: 'reborn' }, forward: sinksOf(SINK('reborn')) }, async (d) => {
    await caughtUp(d.url, 'db');
    await waitFor('the new view', async () => ((await currentAgrees(d, 'reborn', 'reborn')) ? true : undefined), 5000);
    assert.equal(await pg.query(`SELECT type, seq::int AS seq FROM reborn_current`), [{ type: 'a', seq: 1 }]);
    assert.is((await sinkStatus(d.url, 'db')).dead_letters, 0);
  });
});

test('an idle unit still says it is alive: its units row is written again within 10 s with nothing to send', async () => {
  await withTestDaemon({ flags: { unitId: 'idle' }, forward: sinksOf(SINK('idle')) }, async (d) => {
    await postEvent(d.url, { type: 'weather', data: 1 });
    await caughtUp(d.url, 'db');
    const heard = async () => (await pg.query<{ at: string }>(`SELECT to_char(last_heard, 'HH24:MI:SS.US') AS at FROM idle_units`))[0]!.at;
    const first = await heard();
    const since = Date.now();
    await waitFor('a heartbeat', async () => ((await heard()) !== first ? true : undefined), 15_000);
    assert.ok(Date.now() - since <= 12_000, `${Date.now() - since} ms`);
  });
});

test.run();
