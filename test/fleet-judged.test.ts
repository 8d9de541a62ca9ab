import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../lib/version.js';
import { cli } from './helpers/cli.js';
import { withTestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

// What `telemetry fleet` cannot judge is shown so (hostile tester H, findings 4 and 5): a silent
// unit's last safety verdict is not known (never `safe`), a unit whose last_heard is ahead of the
// database's clock (the clock stepped back) is `unjudged`, never `0s ago` and ok.

let pg: TestPostgres;
test.before(async () => {
  pg = await startPostgres();
  await withTestDaemon({ flags: { unitId: 'live' }, forward: sinksOf(`[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "judged"\n${QUICK}`) }, async (d) => {
    await postEvent(d.url, { type: 'weather', data: 1 });
    await caughtUp(d.url, 'db');
  });
  // two more units as the database would hold them: one silent for 3 h, one heard 1 h "in the future"
  await pg.query(`INSERT INTO judged_units (unit, first_heard, last_heard, version, lag_events, lag_seconds, newest_ts, instance)
    SELECT n, first_heard, last_heard, version, lag_events, lag_seconds, newest_ts, n FROM judged_units, unnest(ARRAY['quiet', 'ahead']) AS n;
    INSERT INTO judged_current (unit, type, stream, seq, ts, data, meta, line)
    SELECT n, 'meridian.safety', 'site', 0, now() - interval '3 h', '{"safe":true,"reasons":[]}', '{}', NULL FROM unnest(ARRAY['live', 'quiet', 'ahead']) AS n`);
});
test.after(() => pg.remove());

test('a silent unit\'s verdict is not known; a unit heard ahead of the database\'s clock is unjudged; a live unit\'s standing verdict is its verdict', async () => {
  await pg.query(`UPDATE judged_units SET last_heard = now() + CASE unit WHEN 'quiet' THEN interval '-3 h' WHEN 'ahead' THEN interval '1 h' ELSE interval '0 s' END`);
  const json = await cli(['fleet', '--db', pg.url, '--table', 'judged', '--json']);
  assert.is(json.code, 4, json.stderr);
  const units = JSON.parse(json.stdout) as { unit: string; state: string; heard_s: number | null; safe: boolean | null }[];
  assert.equal(units.map((u) => [u.unit, u.state, u.heard_s === null ? null : u.heard_s >= 0, u.safe]),
    [['quiet', 'silent', true, null], ['ahead', 'unjudged', null, null], ['live', 'ok', true, true]]);
  const text = await cli(['fleet', '--db', pg.url, '--table', 'judged']);
  assert.is(text.code, 4, text.stderr);
  const lines = text.stdout.replace(/\b\d+s ago/, 'Ns ago').split('\n');
  assert.equal(lines.slice(0, 4), [
    'UNIT   STATE     SAFE  ALARM  STALE  HEARD        LAG  VERSION',
    `quiet  silent    -     -      0/1    3h ago       0    ${VERSION}`,
    `ahead  unjudged  -     -      0/1    ahead of db  0    ${VERSION}`,
    `live   ok        safe  -      0/2    Ns ago       0    ${VERSION}`,
  ]);
});

test.run();
