import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { makeFleetTables } from './helpers/fleet-tables.js';
import { Terminal } from './helpers/tmux.js';

// The fleet console (tmux) with the units' alarms (issue 27): the ALARM column in 80 columns,
// a unit with an alarm standing above the ok units, a silent unit's alarm as of last heard
// (`?`); and a terminal 3, 2 and 1 rows high shows what fits, never nothing (hostile tester H,
// finding 6): the totals, a unit's row and the `+N more` marker, then the row and the marker,
// then the marker alone.

let pg: TestPostgres;
test.before(async () => {
  pg = await startPostgres();
  await makeFleetTables(pg.url, 'made');
  await pg.query('DELETE FROM fleet_current');
  await pg.query('DELETE FROM fleet_units');
  // unit, heard how long ago, its alarms (severity, unacknowledged, id; NULL: none configured)
  await pg.query(`INSERT INTO fleet_units (unit, last_heard, version, lag_events, lag_seconds, newest_ts, instance, alarm_severity, alarm_unacked, alarm_id, alarm_at)
    SELECT u, now() - h::interval, '0.1.0', 0, 0, now(), md5(u), s, n, i, now() FROM (VALUES
      ('north-observatory-dome-1', '5 min', 'critical', 1, 'dome'), ('east', '20 s', 'none', 0, NULL), ('south', '20 s', 'warning', 0, 'dew'),
      ('west', '20 s', 'serious', 2, 'wind'), ('plain', '20 s', NULL, NULL, NULL)) AS x(u, h, s, n, i)`);
});
test.after(() => pg.remove());

// the screen's lines, trailing blanks cut, the digits of the HEARD ages as N (their width kept)
const lines = (screen: string) => screen.replace(/\n$/, '').split('\n').map((l) => l.trimEnd().replace(/(?:\d+m)?\d+s ago/g, (m) => m.replace(/\d/g, 'N')));

test('80x24: the ALARM column, alarmed units above the ok ones; 80x3, 80x2 and 80x1 show what fits, never nothing', async () => {
  const t = new Terminal();
  try {
    t.run(['fleet', '--follow', '--db', pg.url, '--table', 'fleet'], { width: 80, height: 24, env: { NO_COLOR: '1' } });
    const full = lines(await t.waitFor('the units', (s) => /^plain /m.test(s)));
    const totals = '5 unit(s): 1 silent, 0 with stale readings, 4 ok; 2 with alarms (1 unacked)';
    const silentRow = 'north-observatory-d…  silent  -     critical!?  0/0    NmNNs ago  0    0.1.0';
    assert.equal(full.slice(1, 8), [
      totals,
      'UNIT                  STATE   SAFE  ALARM       STALE  HEARD      LAG  VERSION',
      silentRow,
      'west                  ok      -     serious!    0/0    NNs ago    0    0.1.0',
      'south                 ok      -     warning     0/0    NNs ago    0    0.1.0',
      'east                  ok      -     none        0/0    NNs ago    0    0.1.0',
      'plain                 ok      -     -           0/0    NNs ago    0    0.1.0',
    ]);
    assert.ok(full.every((l) => l.length <= 80));
    const cases: [number, string[]][] = [
      [3, [totals, silentRow, '+4 more']],
      [2, [silentRow, '+4 more']],
      [1, ['+5 more']],
    ];
    for (const [height, want] of cases) {
      t.resize(80, height);
      const got = lines(await t.waitFor(`${height} rows`, (s) => lines(s).length === height && /more/.test(s)));
      assert.equal(got, want, `height ${height}`);
    }
    t.resize(80, 24);
    await t.waitFor('the whole table again', (s) => /^plain /m.test(s));
    t.keys('q');
    assert.is((await t.output()).exit, 0);
  } finally {
    t.kill();
  }
});

test('no unit to show on a terminal 1 row high: the totals line, not an empty screen', async () => {
  await pg.query('CREATE TABLE empty_units (LIKE fleet_units INCLUDING ALL); CREATE TABLE empty_current (LIKE fleet_current INCLUDING ALL)');
  const t = new Terminal();
  try {
    t.run(['fleet', '--follow', '--db', pg.url, '--table', 'empty'], { width: 80, height: 1, env: { NO_COLOR: '1' } });
    const screen = await t.waitFor('the totals', (s) => /unit\(s\)/.test(s));
    assert.equal(lines(screen), ['0 unit(s): 0 silent, 0 with stale readings, 0 ok']);
  } finally {
    t.kill();
  }
});

test.run();
