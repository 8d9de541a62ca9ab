import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { withTestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

// A reading's age in `telemetry fleet` is judged on the unit's own clock (hostile tester H,
// finding 2): the units row keeps the unit's clock offset against the database's at its last
// transaction, and a reading's age is the database's now plus that offset minus its ts. A unit
// 400 days ahead with a reading 60 s old by its clock (max_age_s 5) is stale, as the unit itself
// says; a unit 30 days behind with a reading just taken (max_age_s 600) is not.

let pg: TestPostgres;
test.before(async () => { pg = await startPostgres(); });
test.after(() => pg.remove());

const DAY = 86_400_000;
const ROWS: [unit: string, offsetMs: number, ageMs: number, maxAge: number][] = [
  ['ahead', 400 * DAY, 60_000, 5],
  ['behind', -30 * DAY, 0, 600],
  ['right', 0, 60_000, 5],
];

test('readings judged on each unit\'s clock: 400 days ahead, 30 days behind, right', async () => {
  for (const [unitId, offsetMs, ageMs, maxAge] of ROWS) {
    const clock = { now: () => Date.now() + offsetMs };
    await withTestDaemon({ clock, flags: { unitId }, forward: sinksOf(`[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "clocks"\n${QUICK}`) }, async (d) => {
      await postEvent(d.url, { type: 'weather', data: 1, max_age_s: maxAge, ts: new Date(clock.now() - ageMs).toISOString() });
      await caughtUp(d.url, 'db');
    });
  }
  const run = await cli(['fleet', '--db', pg.url, '--table', 'clocks', '--json']);
  assert.is(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).map((u: { unit: string; state: string; stale_types: string[] }) => [u.unit, u.state, u.stale_types]),
    [['ahead', 'stale', ['weather']], ['right', 'stale', ['weather']], ['behind', 'ok', []]]);
  const offsets = await pg.query<{ unit: string; off: number }>('SELECT unit, round(clock_offset_s / 86400)::int AS off FROM clocks_units ORDER BY unit');
  assert.equal(offsets, [{ unit: 'ahead', off: 400 }, { unit: 'behind', off: -30 }, { unit: 'right', off: 0 }]);
});

test.run();
