import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { caughtUp, sinksOf, sinkStatus, waitFor } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

// A sink whose statement waits on a lock another session holds (issue 27, tester K): the server
// ends the wait at the sink's timeout (statement_timeout, lock_timeout) and a connection the sink
// gave up on is ended before the next one is used: never more than one backend per sink waits,
// however long the lock is held, so the database never runs out of connections.

let db: TestPostgres;
test.before(async () => { db = await startPostgres(); });
test.after(() => db.remove());

const SINK = `[[sink]]\nname = "db"\nurl = "URL"\ntable = "locked"\nbatch_records = 50\nlinger_ms = 20\nretry_min_ms = 20\nretry_max_ms = 200\ntimeout_ms = 700\nfailing_after_s = 0.3`;

test('the events table locked ACCESS EXCLUSIVE for 3x the timeout: at most one waiting backend per sink; after release 0 missing, 0 twice', async () => {
  // each sink names itself to the server (application_name in its URL), so its backends are counted apart
  const sinks = (unit: string) => sinksOf(SINK.replace('URL', `${db.url}?application_name=sink-${unit}`));
  await withTestDaemon({ flags: { unitId: 'u1' }, forward: sinks('u1') }, async (d1) => {
    await withTestDaemon({ flags: { unitId: 'u2' }, forward: sinks('u2') }, async (d2) => {
      for (const d of [d1, d2]) {
        await postEvent(d.url, { type: 'weather', data: 0 });
        await caughtUp(d.url, 'db');
      }
      const holder = new pg.Client({ connectionString: db.url });
      await holder.connect();
      let most = 0;
      try {
        await holder.query('BEGIN; LOCK TABLE locked IN ACCESS EXCLUSIVE MODE');
        const until = Date.now() + 2100;
        for (let i = 1; Date.now() < until; i++) {
          await Promise.all([d1, d2].map((d) => postEvent(d.url, { type: 'weather', data: i })));
          const rows = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE application_name LIKE 'sink-%' AND wait_event_type = 'Lock' GROUP BY application_name`);
          most = Math.max(most, ...rows.map((r) => r.n));
        }
        // both sinks retried under the lock (each gave up at least once)
        for (const d of [d1, d2]) await waitFor('a retry', async () => ((await sinkStatus(d.url, 'db')).retries >= 2 ? true : undefined), 5000);
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      assert.is(most, 1, `${most} backends of one sink waited on the lock at once`);
      const seqs: number[] = [];
      for (const d of [d1, d2]) {
        await caughtUp(d.url, 'db');
        seqs.push(((await postEvent(d.url, { type: 'dome', data: 'last' })).json.seq as number));
        await caughtUp(d.url, 'db');
      }
      const counts = await db.query(`SELECT unit, count(*)::int AS n, count(DISTINCT seq)::int AS once, max(seq)::int AS high
        FROM locked GROUP BY unit ORDER BY unit`);
      assert.equal(counts, [{ unit: 'u1', n: seqs[0], once: seqs[0], high: seqs[0] }, { unit: 'u2', n: seqs[1], once: seqs[1], high: seqs[1] }]);
      const left = await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'sink-%' AND wait_event_type = 'Lock'`);
      assert.equal(left, [{ n: 0 }]);
    });
  });
});

test.run();
