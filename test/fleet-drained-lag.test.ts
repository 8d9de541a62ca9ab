import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { caughtUp, dayFile, QUICK, sinksOf, waitFor } from './helpers/forward.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { tempDir } from './helpers/tmp.js';

// The batch that drains a backlog writes the units row (issue 27, tester K: it fell inside the
// once-a-second slot of the units row, which kept the old lag until the next heartbeat, 10 s).

let db: TestPostgres;
test.before(async () => { db = await startPostgres(); });
test.after(() => db.remove());

test('a backlog of 300 events drained in a few batches: the units row says lag 0 within 1 s of the sink catching up', async () => {
  const siteDir = tempDir();
  dayFile(siteDir, '20260310', 1, 300);
  const sink = sinksOf(`[[sink]]\nname = "db"\nurl = "${db.url}"\ntable = "drained"\n${QUICK}`);
  await withTestDaemon({ siteDir, flags: { unitId: 'late' }, forward: sink }, async (d) => {
    await caughtUp(d.url, 'db');
    const since = Date.now();
    const row = () => db.query<{ lag_events: number; lag_seconds: number }>('SELECT lag_events::int, lag_seconds FROM drained_units');
    await waitFor('lag 0 in the units row', async () => ((await row())[0]?.lag_events === 0 ? true : undefined), 5000).catch(() => undefined);
    assert.ok(Date.now() - since <= 1000, `the units row said lag 0 ${Date.now() - since} ms after the sink caught up`);
    assert.equal(await row(), [{ lag_events: 0, lag_seconds: 0 }]);
    assert.equal(await db.query('SELECT count(*)::int AS n, max(seq)::int AS high FROM drained'), [{ n: 300, high: 300 }]);
  });
});

test.run();
