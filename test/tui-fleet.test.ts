import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, RunningCli } from './helpers/cli.js';
import { ROOT } from './helpers/daemon.js';
import { COLOUR } from './helpers/console-screen.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { removeDir, tempDir } from './helpers/tmp.js';
import { makeFleetTables } from './helpers/fleet-tables.js';
import { Terminal } from './helpers/tmux.js';

// The fleet console (`telemetry fleet --follow` on a terminal, issue 27) in tmux at 80x24
// against a real PostgreSQL 15 holding 50 units: the tables made by a real daemon's sink, the
// units' rows then written as the sink writes them (a units row per unit, a current row per
// type). Silent units on the first screen, the "+N more" marker's exact text, a change seen
// within 1 s, redrawn every poll, peak RSS under 200 MiB, NO_COLOR, q quits with exit 0.
// Piped, --follow prints one JSON line per poll and loads no blessed.

const ids = Array.from({ length: 50 }, (_, i) => `unit-${String(i + 1).padStart(2, '0')}`);
const SILENT = ['unit-07', 'unit-23', 'unit-41'];
const STALE = ['unit-12', 'unit-36'];
const TRACE = pathToFileURL(path.join(ROOT, 'test', 'helpers', 'module-trace.mjs')).href;

let pg: TestPostgres;
test.before(async () => {
  pg = await startPostgres();
  await makeFleetTables(pg.url, 'unit-01');
  await pg.query('DELETE FROM fleet_current');
  await pg.query('DELETE FROM fleet_units');
  await pg.query(`INSERT INTO fleet_units (unit, last_heard, version, lag_events, lag_seconds, newest_ts, instance)
    SELECT u, now() - CASE WHEN u = ANY($2) THEN interval '5 min' ELSE interval '0' END, '0.1.0', 0, 0, now(), md5(u) FROM unnest($1::text[]) AS u`, [ids, SILENT]);
  await pg.query(`INSERT INTO fleet_current (unit, type, stream, seq, ts, data, meta, line)
    SELECT u, t, 'site', n, now() - CASE WHEN u = ANY($2) AND t = 'weather' THEN interval '1 hour' ELSE interval '0' END, '1', '{}', NULL
    FROM unnest($1::text[]) AS u, unnest(ARRAY['dome', 'weather']) WITH ORDINALITY AS x(t, n)`, [ids, STALE]);
});
test.after(() => pg.remove());

const follow = () => ['fleet', '--follow', '--db', pg.url, '--table', 'fleet'];

// the screen's unit rows as [unit, state], top to bottom
const unitRows = (screen: string) => [...screen.matchAll(/^(unit-\d\d) +(\w+) /gm)].map((m) => [m[1], m[2]]);

// the pid of the command the terminal runs (the node child of the pane's shell)
function commandPid(t: Terminal): number {
  const shell = t.display('#{pane_pid}');
  return Number(fs.readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(' ')[0]);
}

test('80x24, 50 units: silent then stale units first, "+31 more", a unit turning silent shown within 1 s, redrawn every poll, peak RSS under 200 MiB, q quits', async () => {
  const t = new Terminal();
  try {
    t.run(follow(), { width: 80, height: 24 });
    const first = await t.waitFor('the units', (s) => /\+\d+ more/.test(s));
    const lines = first.split('\n');
    assert.is(lines[0]!.trimEnd(), `meridian fleet  postgres://***@127.0.0.1:${pg.port}/postgres (fleet)`);
    assert.is(lines[1]!.trimEnd(), '50 unit(s): 3 silent, 2 with stale readings, 45 ok');
    assert.match(lines[2]!, /^UNIT +STATE +SAFE +ALARM +STALE +HEARD +LAG +VERSION$/);
    const ok = ids.filter((u) => !SILENT.includes(u) && !STALE.includes(u));
    assert.equal(unitRows(first), [...SILENT.map((u) => [u, 'silent']), ...STALE.map((u) => [u, 'stale']), ...ok.slice(0, 14).map((u) => [u, 'ok'])]);
    assert.is(lines[22]!.trimEnd(), '+31 more');
    assert.is(lines[23]!.trimEnd(), 'q quit   every 0.5 s   telemetry fleet lists every unit');
    assert.match(lines[3]!, /^unit-07 +silent +- +- +0\/2 +5m0\ds ago +0 +0\.1\.0$/);

    // redrawn every poll: unit-07's HEARD moves on with the database's clock, second by second
    const heard = new Set<string>();
    await t.waitFor('three HEARD values of unit-07', (s) => {
      heard.add(/^unit-07 .* (\S+) ago/m.exec(s)![1]!);
      return heard.size >= 3;
    }, 3500);

    // unit-30 (below the marker) turns silent: on the first screen within 1 s
    await pg.query(`UPDATE fleet_units SET last_heard = now() - interval '5 min' WHERE unit = 'unit-30'`);
    const changed = Date.now();
    const after = await t.waitFor('unit-30 silent', (s) => /^unit-30 +silent/m.test(s), 5000);
    const ms = Date.now() - changed;
    assert.equal(unitRows(after).slice(0, 4), [['unit-07', 'silent'], ['unit-23', 'silent'], ['unit-30', 'silent'], ['unit-41', 'silent']]);
    assert.is(after.split('\n')[1]!.trimEnd(), '50 unit(s): 4 silent, 2 with stale readings, 44 ok');
    assert.is(after.split('\n')[22]!.trimEnd(), '+31 more');
    assert.ok(ms <= 1000, `shown ${ms} ms after the change`);

    const peakKib = Number(/^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${commandPid(t)}/status`, 'utf8'))![1]);
    process.stdout.write(`fleet console: change shown after ${ms} ms, peak RSS ${peakKib} KiB (load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})\n`);
    assert.ok(peakKib < 200 * 1024, `peak RSS ${peakKib} KiB`);
    const colours = t.screen(true).split('\n').find((l) => l.includes('unit-07'))!;
    assert.ok(COLOUR.test(colours), `a silent row is in colour: ${JSON.stringify(colours)}`);
    await pg.query(`UPDATE fleet_units SET last_heard = now() WHERE unit = 'unit-30'`);

    t.keys('q');
    const end = await t.output();
    assert.equal([end.exit, end.restored], [0, true]);
  } finally {
    t.kill();
  }
});

test('NO_COLOR: the same rows without a colour; the database gone: the last answer stays and the top line says why', async () => {
  const t = new Terminal();
  try {
    t.run(follow(), { width: 80, height: 24, env: { NO_COLOR: '1' } });
    await t.waitFor('the units', (s) => /\+31 more/.test(s));
    assert.not.ok(COLOUR.test(t.screen(true)), 'no colour');
    assert.equal(unitRows(t.screen()).slice(0, 5).map((r) => r[1]), ['silent', 'silent', 'silent', 'stale', 'stale']);
    pg.stop();
    try {
      const down = await t.waitFor('the failure', (s) => /no database/.test(s));
      const said = `no database at postgres://***@127.0.0.1:${pg.port}/postgres (ECONNREFUSED); showing its last answer`;
      // too long for 80 columns: wrapped after its semicolon onto a second line, never cut
      assert.equal(down.split('\n').slice(1, 3).map((l) => l.trimEnd()), [said.slice(0, said.indexOf(';') + 1), `  ${said.slice(said.indexOf(';') + 2)}`]);
      assert.is(unitRows(down).length, 18);
    } finally {
      pg.start();
    }
    await t.waitFor('the totals again', (s) => s.split('\n')[1]!.trimEnd() === '50 unit(s): 3 silent, 2 with stale readings, 45 ok');
    t.keys('C-c');
    assert.equal((await t.output()).exit, 0);
  } finally {
    t.kill();
  }
});

test('a duplicate unit: the totals wrap onto a second line at 80 and at 60 columns, never cut', async () => {
  await pg.query(`UPDATE fleet_units SET duplicate_at = now() WHERE unit = 'unit-05'`);
  try {
    const rows: [number, string[]][] = [
      [80, ['50 unit(s): 3 silent, 1 with two daemons on one unit id, 2 with stale readings,', '  44 ok']],
      [60, ['50 unit(s): 3 silent, 1 with two daemons on one unit id,', '  2 with stale readings, 44 ok']],
    ];
    const shown: [number, string[]][] = [];
    for (const [width] of rows) {
      const t = new Terminal();
      try {
        t.run(follow(), { width, height: 24 });
        const screen = await t.waitFor('the units', (s) => /^unit-05 +duplicate/m.test(s));
        shown.push([width, screen.split('\n').slice(1, 3).map((l) => l.trimEnd())]);
        assert.match(screen.split('\n')[3]!, /^UNIT +STATE/);
        t.keys('q');
        assert.is((await t.output()).exit, 0);
      } finally {
        t.kill();
      }
    }
    assert.equal(shown, rows);
  } finally {
    await pg.query(`UPDATE fleet_units SET duplicate_at = NULL WHERE unit = 'unit-05'`);
  }
});

test('piped: --follow prints one JSON line of the 50 units per poll; neither it nor the table loads blessed or tui/', async () => {
  const dir = tempDir('meridian-trace-');
  const traced = (name: string) => ({ NODE_OPTIONS: `--import=${TRACE}`, MODULE_TRACE_FILE: path.join(dir, name) });
  const loadedConsole = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8').split('\n')
    .filter((u) => /\/node_modules\/blessed(-contrib)?\/|\/dist\/tui\//.test(u));
  try {
    const run = new RunningCli(follow(), traced('follow'));
    try {
      await run.until('two lines', () => run.lines().length >= 2);
      const units = JSON.parse(run.lines()[0]!) as { unit: string; state: string }[];
      assert.equal(units.map((u) => u.unit).slice(0, 5), [...SILENT, ...STALE]);
      assert.is(units.length, 50);
      assert.is(run.err, '');
    } finally {
      run.child.kill('SIGTERM');
      assert.is(await run.exited, 0);
    }
    assert.equal(loadedConsole('follow'), []);
    const table = await cli(['fleet', '--db', pg.url, '--table', 'fleet'], { env: traced('table') });
    assert.is(table.code, 4);
    assert.equal(loadedConsole('table'), []);
  } finally {
    removeDir(dir);
  }
});

test('--interval without --follow, and --follow with coverage: bad usage (exit 2)', async () => {
  const rows: Array<[string[], string]> = [
    [['fleet', '--interval', '1', '--db', 'postgres://x@127.0.0.1/db'], 'telemetry: --interval only applies with --follow (see "telemetry fleet --help")\n'],
    [['fleet', 'coverage', '--follow', '--db', 'postgres://x@127.0.0.1/db'], 'telemetry: --follow applies to the units, not to coverage (see "telemetry fleet --help")\n'],
  ];
  for (const [args, stderr] of rows) assert.equal(await cli(args), { code: 2, stdout: '', stderr }, args.join(' '));
});

test.run();
