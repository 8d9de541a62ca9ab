import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTestDaemon } from './helpers/daemon.js';
import { caughtUp, failing, sinksOf, waitFor } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

// A batch the database keeps failing on (a trigger raising on its type; a tablespace full) while
// the unit's current view, sent fresh first before each retry, goes through (hostile tester H,
// finding 3): that write is not the sink coming back. The backoff keeps growing, last_success
// stays at the last batch of events acknowledged, the sink reaches failing, and the units row
// carries the real lag.

let pg: TestPostgres;
test.before(async () => { pg = await startPostgres(); });
test.after(() => pg.remove());

const SINK = () => `[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "poisoned"\nbatch_records = 50\nlinger_ms = 20\nretry_min_ms = 20\nretry_max_ms = 400\ntimeout_ms = 3000\nfailing_after_s = 1`;

test('a poisoned batch: fresh-first writes do not reset the backoff or last_success; failing after failing_after_s; the units row has the real lag', async () => {
  await withTestDaemon({ flags: { unitId: 'p1' }, forward: sinksOf(SINK()) }, async (d) => {
    await postEvent(d.url, { type: 'weather', data: 1 });
    const before = await caughtUp(d.url, 'db');
    await pg.query(`CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN
        IF NEW.type = 'poison' THEN RAISE EXCEPTION 'poisoned'; END IF; RETURN NEW; END$$;
      CREATE TRIGGER poison BEFORE INSERT ON poisoned FOR EACH ROW EXECUTE FUNCTION poison()`);
    const ts = new Date(Date.now() - 100_000).toISOString();
    await postEvent(d.url, { type: 'poison', ts, data: 2 });
    const down = await failing(d.url, 'db');
    assert.equal([down.last_success, down.delivered, down.lag_events, down.dead_letters, down.last_error],
      [before.last_success, 1, 1, 0, 'poisoned (P0001)']);
    // the delay grew past its first steps, and no retry said the sink was back
    await waitFor('retry 6', () => d.logs.some((l) => / retry 6 in \d+ ms$/.test(l)) || undefined);
    assert.equal(d.logs.filter((l) => l.includes('delivering again')), []);
    const row = await pg.query<{ lag_events: number; old: boolean }>('SELECT lag_events::int, lag_seconds >= 100 AS old FROM poisoned_units');
    assert.equal(row, [{ lag_events: 1, old: true }]);
    await pg.query('DROP TRIGGER poison ON poisoned');
    const back = await caughtUp(d.url, 'db');
    assert.equal([back.delivered, back.last_success === before.last_success], [2, false]);
    assert.equal(d.logs.filter((l) => l.includes('delivering again')).length, 1);
  });
});

test.run();
