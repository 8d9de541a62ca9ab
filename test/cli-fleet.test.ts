import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../lib/version.js';
import { cli } from './helpers/cli.js';
import { freePort, startTestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { removeDir } from './helpers/tmp.js';

// `telemetry fleet` against a real PostgreSQL 15 fed by real daemons (issue 27): one line per
// unit, silent first, then stale; exit 4 while a unit is silent; `fleet coverage` with its gaps
// and seqs held twice; every mistake one line and its exit code.

let pg: TestPostgres;
test.before(async () => {
  pg = await startPostgres();
  const units = await Promise.all(['dome-a', 'dome-b', 'dome-c'].map((unitId) => startTestDaemon({
    flags: { unitId }, forward: sinksOf(`[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "fleet"\n${QUICK}`),
  })));
  try {
    const [a, b, c] = units;
    for (let i = 1; i <= 4; i++) await postEvent(a!.url, { type: 'weather', data: i });
    await postEvent(b!.url, { type: 'weather', data: 1, ts: new Date(Date.now() - 3_600_000).toISOString() });
    await postEvent(b!.url, { type: 'power', data: 230 });
    await postEvent(c!.url, { type: 'dome', data: 'open', max_age_s: 3600 });
    await Promise.all(units.map((d) => caughtUp(d.url, 'db')));
  } finally {
    await Promise.all(units.map(async (d) => { await d.close(); removeDir(d.siteDir); }));
  }
  // the daemon's safety verdict as a unit's current row (issue 24: only a daemon with a [safety] section records
  // meridian.safety; callers cannot post it): dome-a safe, dome-b not, dome-c none
  await pg.query(`INSERT INTO fleet_current (unit, type, stream, seq, ts, data, meta, line) VALUES
    ('dome-a', 'meridian.safety', 'site', 0, now(), '{"safe":true,"reasons":[]}', '{}', NULL),
    ('dome-b', 'meridian.safety', 'site', 0, now(), '{"safe":false,"reasons":["weather is stale"]}', '{}', NULL)`);
});

/** The units stopped: when each was last heard, set by the test on the database's clock just before a command reads it. */
async function setHeard(): Promise<number> {
  await pg.query(`UPDATE fleet_units SET last_heard = now() - CASE unit WHEN 'dome-a' THEN interval '5 s' WHEN 'dome-b' THEN interval '20 s'
    ELSE interval '10 min' END, lag_events = CASE unit WHEN 'dome-b' THEN 120 ELSE 0 END, lag_seconds = CASE unit WHEN 'dome-b' THEN 4.5 ELSE 0 END`);
  return Date.now();
}

/** Each HEARD cell of a table (in row order) checked to lie between its base and the seconds since `since`, and written as its base. */
function heardAsBase(stdout: string, bases: readonly string[], since: number): string {
  const seconds = (cell: string) => { const m = /^(?:(\d+)m)?(\d+)s$/.exec(cell)!; return Number(m[1] ?? 0) * 60 + Number(m[2]); };
  const slack = Math.ceil((Date.now() - since) / 1000);
  let i = 0;
  return stdout.replace(/\b(?:\d+m)?\d+s(?= ago)/g, (cell) => {
    const base = bases[i++]!;
    const late = seconds(cell) - seconds(base);
    assert.ok(late >= 0 && late <= slack, `HEARD ${cell} is ${base} plus at most ${slack} s`);
    return base;
  });
}
test.after(() => pg.remove());

const DB = () => ['--db', pg.url, '--table', 'fleet'];

test('fleet: one line per unit, silent first, then stale; exit 4 naming the silent unit', async () => {
  const since = await setHeard();
  const run = await cli(['fleet', ...DB()]);
  assert.is(heardAsBase(run.stdout, ['10m00s', '20s', '5s'], since), [
    'UNIT    STATE   SAFE    ALARM  STALE  HEARD       LAG       VERSION',
    `dome-c  silent  -       -      0/1    10m00s ago  0         ${VERSION}`,
    `dome-b  stale   UNSAFE  -      1/3    20s ago     120 / 4s  ${VERSION}`,
    `dome-a  ok      safe    -      0/2    5s ago      0         ${VERSION}`,
    '3 unit(s): 1 silent, 1 with stale readings, 1 ok',
    ''].join('\n'));
  assert.is(run.stderr, 'telemetry: 1 unit(s) silent for more than 60 s: dome-c\n');
  assert.is(run.code, 4);
});

test('fleet --json: the same units as objects; no unit silent under a longer --silent-after: exit 0 (the database from MERIDIAN_TELEMETRY_FLEET_DB)', async () => {
  const since = await setHeard();
  const run = await cli(['fleet', '--table', 'fleet', '--json', '--silent-after', '900', '--max-age', 'power=0.001'], { env: { MERIDIAN_TELEMETRY_FLEET_DB: pg.url } });
  assert.is(run.code, 0, run.stderr);
  const units = (JSON.parse(run.stdout) as { heard_s: number; last_heard: string; newest_ts: string }[])
    .map((u) => ({ ...u, heard_s: Math.floor(u.heard_s), last_heard: typeof u.last_heard, newest_ts: typeof u.newest_ts }));
  // heard_s as set (20, 5, 600 s ago) plus the time the command took: written as its base once within it
  const slack = Math.ceil((Date.now() - since) / 1000);
  for (const u of units) {
    const base = [600, 20, 5].find((b) => u.heard_s >= b && u.heard_s <= b + slack);
    assert.ok(base !== undefined, `heard_s ${u.heard_s} is a base plus at most ${slack} s`);
    u.heard_s = base!;
  }
  const unit = (name: string, state: string, safe: boolean | null, heard: number, types: number, stale: string[], lag: [number, number]) => ({
    unit: name, state, last_heard: 'string', heard_s: heard, types, stale: stale.length, stale_types: stale, lag_events: lag[0], lag_seconds: lag[1],
    version: VERSION, newest_ts: 'string', duplicate_at: null, safe, alarm: null,
  });
  // power=0.001: dome-b's power reading is older than a millisecond now; weather has no limit then (nor has meridian.safety ever)
  assert.equal(units, [unit('dome-b', 'stale', false, 20, 3, ['power'], [120, 4.5]), unit('dome-a', 'ok', true, 5, 2, [], [0, 0]),
    unit('dome-c', 'ok', null, 600, 1, [], [0, 0])]);
  assert.is(run.stderr, '');
});

test('fleet coverage: each unit\'s seqs per stream, the gaps and the seqs held twice', async () => {
  await pg.query(`DELETE FROM fleet WHERE unit = 'dome-a' AND seq = 2; SELECT fleet_partition('2026-01-01T00:00:00Z');
    INSERT INTO fleet (unit, stream, seq, ts, type, data, meta, line) VALUES ('dome-b', 'site', 1, '2026-01-01T00:00:00Z', 'weather', '1', '{}', NULL)`);
  const table = await cli(['fleet', 'coverage', ...DB()]);
  assert.is(table.stdout, [
    'UNIT    STREAM  SEQS  EVENTS  TWICE  GAPS',
    'dome-a  site    1-4   3       0      2',
    'dome-b  site    1-2   3       1      none',
    'dome-c  site    1-1   1       0      none',
    ''].join('\n'));
  assert.is(table.code, 0, table.stderr);
  const json = await cli(['fleet', 'coverage', ...DB(), '--json']);
  assert.equal(JSON.parse(json.stdout), [
    { unit: 'dome-a', stream: 'site', first: 1, last: 4, events: 3, twice: 0, gaps: [[2, 2]] },
    { unit: 'dome-b', stream: 'site', first: 1, last: 2, events: 3, twice: 1, gaps: [] },
    { unit: 'dome-c', stream: 'site', first: 1, last: 1, events: 1, twice: 0, gaps: [] },
  ]);
});

test('fleet: each mistake is one line on stderr with its exit code', async () => {
  await pg.query('CREATE DATABASE empty');
  const closed = await freePort();
  const rows: [string, string[], number, string][] = [
    // [name, arguments, exit code, stderr]
    ['no --db', ['fleet'], 2, 'telemetry: --db is required (or MERIDIAN_TELEMETRY_FLEET_DB): the fleet\'s database, postgres://user@host/database (see "telemetry fleet --help")\n'],
    ['not a postgres URL (its password hidden)', ['fleet', '--db', 'mysql://u:s3cret@db/x'], 2,
      'telemetry: --db must be a postgres:// or postgresql:// URL; got "mysql://***@db/x" (see "telemetry fleet --help")\n'],
    ['a bad table name', ['fleet', '--db', pg.url, '--table', 'Fleet;drop'], 2,
      'telemetry: --table must be a lower-case name (letters, digits, _), optionally schema.table; got "Fleet;drop" (see "telemetry fleet --help")\n'],
    ['an unknown view', ['fleet', 'units', '--db', pg.url], 2,
      'telemetry: unknown fleet view "units" (the views: the units, coverage, or retire UNIT) (see "telemetry fleet --help")\n'],
    ['no database there', ['fleet', '--db', `postgres://u:s3cret@127.0.0.1:${closed}/x`], 3,
      `telemetry: no database at postgres://***@127.0.0.1:${closed}/x (ECONNREFUSED)\n`],
    ['a database without the tables', ['fleet', '--db', pg.url.replace(/\/postgres$/, '/empty')], 1,
      `telemetry: no fleet tables for meridian_events at postgres://***@127.0.0.1:${pg.port}/empty: relation "meridian_events_units" does not exist (no unit of this version has forwarded to it yet)\n`],
  ];
  rows.push(['a variable that is not a postgres URL names the variable', ['fleet'], 2,
    'telemetry: MERIDIAN_TELEMETRY_FLEET_DB must be a postgres:// or postgresql:// URL; got "http://db" (see "telemetry fleet --help")\n']);
  for (const [name, args, code, stderr] of rows) {
    const run = await cli(args, name.startsWith('a variable') ? { env: { MERIDIAN_TELEMETRY_FLEET_DB: 'http://db' } } : {});
    assert.equal([run.code, run.stderr, run.stdout], [code, stderr, ''], name);
  }
});

test.run();
