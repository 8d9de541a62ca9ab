import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

// Every year the daemon takes (0001-9999) has its month's partition in PostgreSQL (issue 27,
// tester K: events dated 0001-0099 were dead-lettered "no partition ... found", their partition
// made for 1901-1999 by JavaScript's two-digit-year rule).

let db: TestPostgres;
test.before(async () => { db = await startPostgres(); });
test.after(() => db.remove());

// [the reading's ts, its partition]
const ROWS: [string, string][] = [
  ['0001-01-01T00:00:00.000Z', 'years_p000101'],
  ['0099-12-31T23:59:59.999Z', 'years_p009912'],
  ['0100-03-01T12:00:00.000Z', 'years_p010003'],
  ['1969-12-31T23:59:59.999Z', 'years_p196912'],
  ['9999-12-31T23:59:59.999Z', 'years_p999912'],
];

test('readings dated 0001, 0099, 0100, 1969 and 9999: each in its own month\'s partition, its current row kept, nothing dead-lettered', async () => {
  const sink = sinksOf(`[[sink]]\nname = "db"\nurl = "${db.url}"\ntable = "years"\n${QUICK}`);
  await withTestDaemon({ flags: { unitId: 'old' }, forward: sink }, async (d) => {
    for (const [i, [ts]] of ROWS.entries()) assert.is((await postEvent(d.url, { type: `t${i}`, data: i, ts })).status, 200);
    const status = await caughtUp(d.url, 'db');
    assert.is(status.dead_letters, 0);
    const rows = await db.query(`SELECT tableoid::regclass::text AS part, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ts
      FROM years ORDER BY ts`);
    assert.equal(rows, ROWS.map(([ts, part]) => ({ part, ts })));
    const current = await db.query(`SELECT type, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ts FROM years_current ORDER BY type`);
    assert.equal(current, ROWS.map(([ts], i) => ({ type: `t${i}`, ts })));
  });
});

test.run();
