import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// `telemetry fleet retire UNIT` (hostile H, issue 27, finding 8d): a unit taken out of service
// stayed silent, and the fleet's exit 4, for ever. Retired (only while silent), it is neither
// listed nor counted; its events stay; heard again, it is back with its whole view.

let db: TestPostgres;
const sites = { 'dome-a': tempDir(), 'dome-c': tempDir() };
const open = (unitId: 'dome-a' | 'dome-c') => startTestDaemon({ siteDir: sites[unitId], flags: { unitId },
  forward: sinksOf(`[[sink]]\nname = "db"\nurl = "${db.url}"\ntable = "fleet"\n${QUICK}`) });

test.before(async () => {
  db = await startPostgres();
  for (const unit of ['dome-a', 'dome-c'] as const) {
    const d = await open(unit);
    try {
      for (const [type, data] of [['weather', 1], ['dome', 'open'], ['power', 230]] as const) await postEvent(d.url, { type, data });
      await caughtUp(d.url, 'db');
    } finally {
      await d.close();
    }
  }
});
test.after(() => {
  db.remove();
  for (const dir of Object.values(sites)) removeDir(dir);
});

const DB = () => ['--db', db.url, '--table', 'fleet'];

/** `text` with its age (`heard N s ago`, `NmSSs ago`) checked to be `base` s plus at most the seconds since `since`, and written as `base`. */
function asBase(text: string, pattern: RegExp, base: number, since: number, show: (s: number) => string): string {
  const slack = Math.ceil((Date.now() - since) / 1000);
  return text.replace(pattern, (cell) => {
    const [m, s] = cell.match(/\d+/g)!.map(Number);
    const seconds = s === undefined ? m! : m! * 60 + s;
    assert.ok(seconds >= base && seconds <= base + slack, `${cell} is ${base} s plus at most ${slack}`);
    return show(base);
  });
}

test('a unit not silent, or not there, is not retired (exit 1, nothing changed)', async () => {
  const since = Date.now();
  await db.query(`UPDATE fleet_units SET last_heard = now() - interval '30 s'`);
  const heard = await cli(['fleet', 'retire', 'dome-a', ...DB()]);
  assert.equal([heard.code, asBase(heard.stderr, /heard \d+ s ago/, 30, since, (s) => `heard ${s} s ago`), heard.stdout],
    [1, 'telemetry: dome-a is not silent (it was heard 30 s ago): only a unit silent for --silent-after (60 s) is retired\n', '']);
  await db.query(`UPDATE fleet_units SET last_heard = now() + interval '1 hour' WHERE unit = 'dome-a'`);
  const ahead = await cli(['fleet', 'retire', 'dome-a', ...DB()]);
  assert.equal([ahead.code, ahead.stderr], [1,
    'telemetry: dome-a is not silent (its last word is ahead of the database\'s clock): only a unit silent for --silent-after (60 s) is retired\n']);
  const none = await cli(['fleet', 'retire', 'dome-x', ...DB()]);
  assert.equal([none.code, none.stderr], [1, `telemetry: no unit "dome-x" in fleet at postgres://***@127.0.0.1:${db.port}/postgres (\`telemetry fleet\` lists the units)\n`]);
  // a unit id starting with "-" is named after `--` (else it is read as options)
  const dashed = await cli(['fleet', 'retire', ...DB(), '--', '-rf']);
  assert.equal([dashed.code, dashed.stderr], [1, `telemetry: no unit "-rf" in fleet at postgres://***@127.0.0.1:${db.port}/postgres (\`telemetry fleet\` lists the units)\n`]);
  assert.equal(await db.query(`SELECT unit, count(*)::int AS n FROM fleet_current GROUP BY unit ORDER BY unit`), [{ unit: 'dome-a', n: 3 }, { unit: 'dome-c', n: 3 }]);
});

test('a silent unit retired: its line and current rows gone, its events kept; the fleet no longer silent (exit 0); heard again, it is back whole', async () => {
  const since = Date.now();
  await db.query(`UPDATE fleet_units SET last_heard = now() - CASE unit WHEN 'dome-c' THEN interval '10 min' ELSE interval '0 s' END`);
  const before = await cli(['fleet', ...DB()]);
  assert.equal([before.code, before.stderr], [4, 'telemetry: 1 unit(s) silent for more than 60 s: dome-c\n']);
  const retire = await cli(['fleet', 'retire', 'dome-c', ...DB()]);
  assert.equal([retire.code, asBase(retire.stdout, /\d+m\d+s ago/, 600, since, () => '10m00s ago'), retire.stderr], [0,
    'retired dome-c: last heard 10m00s ago; its line and 3 current reading(s) removed, its events kept; it is listed again when it is heard again\n', '']);
  const after = await cli(['fleet', '--json', ...DB()]);
  assert.equal([after.code, (JSON.parse(after.stdout) as { unit: string }[]).map((u) => u.unit), after.stderr], [0, ['dome-a'], '']);
  assert.equal(await db.query(`SELECT unit, count(*)::int AS n FROM fleet GROUP BY unit ORDER BY unit`), [{ unit: 'dome-a', n: 3 }, { unit: 'dome-c', n: 3 }], 'the events stay');
  const again = await cli(['fleet', 'retire', 'dome-c', ...DB()]);
  assert.equal([again.code, again.stderr], [1, `telemetry: no unit "dome-c" in fleet at postgres://***@127.0.0.1:${db.port}/postgres (\`telemetry fleet\` lists the units)\n`]);
  // the unit's daemon started again with its id: its line and its whole view come back without a new event
  const d = await open('dome-c');
  try {
    const current = (await request(d.url, '/current')).json.current as Record<string, { line?: string }>;
    const rows = await waitFor('dome-c heard again', async () => {
      const r = await db.query<{ type: string; line: string }>(`SELECT type, line FROM fleet_current WHERE unit = 'dome-c' ORDER BY type`);
      const listed = await db.query(`SELECT unit FROM fleet_units WHERE unit = 'dome-c'`);
      return r.length === 3 && listed.length === 1 ? r : undefined;
    });
    assert.equal(Object.fromEntries(rows.map((r) => [r.type, JSON.parse(r.line)])), current);
    const listed = await cli(['fleet', '--json', ...DB()]);
    assert.equal([listed.code, (JSON.parse(listed.stdout) as { unit: string; types: number }[]).map((u) => [u.unit, u.types])], [0, [['dome-a', 3], ['dome-c', 3]]]);
  } finally {
    await d.close();
  }
});

test('retire: usage mistakes exit 2 with one line', async () => {
  const rows: [string[], string][] = [
    [['fleet', 'retire', ...DB()], 'telemetry: retire needs the unit to retire: telemetry fleet retire UNIT (see "telemetry fleet --help")\n'],
    [['fleet', 'retire', 'a b', ...DB()], 'telemetry: UNIT must be 1-64 letters, digits, ".", "_" or "-" (not "." or ".."); got "a b" (see "telemetry fleet --help")\n'],
    [['fleet', 'retire', 'dome-c', '--follow', ...DB()], 'telemetry: --follow applies to the units, not to retire (see "telemetry fleet --help")\n'],
    [['fleet', 'coverage', 'dome-c', ...DB()], 'telemetry: a unit ("dome-c") is named only with retire (see "telemetry fleet --help")\n'],
    [['fleet', 'retire', 'dome-c', '--silent-after', '5', ...DB()], 'telemetry: --silent-after must be a number of seconds from 20 to 2147483 (such as 60); got "5" (see "telemetry fleet --help")\n'],
  ];
  for (const [args, stderr] of rows) {
    const run = await cli(args);
    assert.equal([run.code, run.stderr, run.stdout], [2, stderr, ''], args.join(' '));
  }
});

test.run();
