import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../lib/version.js';
import { cli } from './helpers/cli.js';
import { spawnDaemon, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The worst alarm per unit (issue 27): the units row carries the unit's alarms (migration 5),
// written by its PostgreSQL sink in the transaction of its units row, and `telemetry fleet` shows
// them (ALARM, --json `alarm`). An alarm raised, acknowledged, shelved, cleared: the row and the
// fleet follow with exact values; a unit with no [[alarm]] shows `-` (null), never `none`; fresh
// first carries the alarms (a batch refused, the database stopped and started); a unit killed -9
// with an alarm standing shows it as of last heard (`?`).

let pg: TestPostgres;
test.before(async () => { pg = await startPostgres(); });
test.after(() => pg.remove());

const ALARMS = `
[[alarm]]
id = "wind"
severity = "serious"
when = "weather.data.wind > 40"

[[alarm]]
id = "dome"
severity = "critical"
when = "dome.data.t > 40"
`;
const sink = (table: string) => `[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "${table}"\n${QUICK}\n`;

interface Row { alarm_severity: string | null; alarm_unacked: number | null; alarm_id: string | null; judged: boolean | null }

// the unit's alarm columns, alarm_at only as whether it lies between the test's start and now
async function alarmRow(table: string, unit: string, since: string): Promise<Row> {
  const rows = await pg.query<Row>(`SELECT alarm_severity, alarm_unacked, alarm_id,
    alarm_at BETWEEN $2::timestamptz AND clock_timestamp() AS judged FROM ${table}_units WHERE unit = $1`, [unit, since]);
  return rows[0]!;
}

// wait until the row holds `want` (a row that never does fails with what it held)
async function rowBecomes(table: string, unit: string, since: string, want: Row): Promise<void> {
  let last: Row | undefined;
  await waitFor(`${unit}'s row to be ${JSON.stringify(want)}`, async () => {
    // the tables are made by the unit's first connection
    last = await alarmRow(table, unit, since).catch(() => undefined);
    return JSON.stringify(last) === JSON.stringify(want) ? true : undefined;
  }, 5_000).catch(() => assert.equal(last, want));
}

async function fleetJson(table: string, extra: string[] = []): Promise<{ unit: string; state: string; alarm: unknown }[]> {
  const run = await cli(['fleet', '--db', pg.url, '--table', table, '--json', ...extra]);
  return (JSON.parse(run.stdout) as { unit: string; state: string; alarm: unknown }[]).map(({ unit, state, alarm }) => ({ unit, state, alarm }));
}

const post = (d: TestDaemon, type: string, data: object) => postEvent(d.url, { type, data });
const act = (d: TestDaemon, p: string, body: object, method = 'POST') => request(d.url, p, { method, body });

test('an alarm raised, acknowledged, shelved and cleared: the units row and telemetry fleet follow; no [[alarm]]: null and -', async () => {
  const since = new Date().toISOString();
  await withTestDaemon({ flags: { unitId: 'plain' }, config: sink('fa') }, async (plain) => {
    await post(plain, 'weather', { wind: 50 });
    await caughtUp(plain.url, 'db');
    await rowBecomes('fa', 'plain', since, { alarm_severity: null, alarm_unacked: null, alarm_id: null, judged: null });
  });
  await withTestDaemon({ flags: { unitId: 'scope' }, config: sink('fa') + ALARMS }, async (d) => {
    // each step: what is done, the units row after it, scope's ALARM cell and types, its --json alarm
    const steps: [string, () => Promise<unknown>, Row, string, number, unknown][] = [
      ['calm', () => post(d, 'weather', { wind: 10 }),
        { alarm_severity: 'none', alarm_unacked: 0, alarm_id: null, judged: true }, 'none', 1, { severity: 'none', unacked: 0, id: null }],
      ['wind raised', () => post(d, 'weather', { wind: 45 }),
        { alarm_severity: 'serious', alarm_unacked: 1, alarm_id: 'wind', judged: true }, 'serious!', 2, { severity: 'serious', unacked: 1, id: 'wind' }],
      ['wind acknowledged', () => act(d, '/alarms/wind/ack', { by: 'ops' }),
        { alarm_severity: 'serious', alarm_unacked: 0, alarm_id: 'wind', judged: true }, 'serious', 2, { severity: 'serious', unacked: 0, id: 'wind' }],
      ['dome raised', () => post(d, 'dome', { t: 45 }),
        { alarm_severity: 'critical', alarm_unacked: 1, alarm_id: 'dome', judged: true }, 'critical!', 3, { severity: 'critical', unacked: 1, id: 'dome' }],
      ['dome shelved', () => act(d, '/alarms/dome/shelve', { by: 'ops', for_s: 3600 }),
        { alarm_severity: 'serious', alarm_unacked: 0, alarm_id: 'wind', judged: true }, 'serious', 3, { severity: 'serious', unacked: 0, id: 'wind' }],
      ['wind cleared', () => post(d, 'weather', { wind: 5 }),
        { alarm_severity: 'none', alarm_unacked: 0, alarm_id: null, judged: true }, 'none', 3, { severity: 'none', unacked: 0, id: null }],
      ['dome unshelved, still hot', () => act(d, '/alarms/dome/shelve', { by: 'ops' }, 'DELETE'),
        { alarm_severity: 'critical', alarm_unacked: 1, alarm_id: 'dome', judged: true }, 'critical!', 3, { severity: 'critical', unacked: 1, id: 'dome' }],
    ];
    for (const [what, step, row, cell, types, alarm] of steps) {
      const answer = await step() as { status: number; text: string };
      assert.ok(answer.status < 300, `${what}: ${answer.text}`);
      await rowBecomes('fa', 'scope', since, row);
      const units = await fleetJson('fa');
      const at = (units.find((u) => u.unit === 'scope')!.alarm as { at: string }).at;
      assert.ok(at >= since, `${what}: at ${at}`);
      // a unit with an alarm standing comes before an ok unit without one
      const standing = cell !== 'none';
      const scope = { unit: 'scope', state: 'ok', alarm: { ...(alarm as object), at, unjudged: false } };
      const plain = { unit: 'plain', state: 'ok', alarm: null };
      assert.equal(units, standing ? [scope, plain] : [plain, scope], what);
      const text = await cli(['fleet', '--db', pg.url, '--table', 'fa']);
      assert.is(text.code, 0, text.stderr);
      const w = Math.max(5, cell.length);
      const lines = {
        scope: `scope  ok     -     ${cell.padEnd(w)}  0/${types}    Ns ago  0    ${VERSION}`,
        plain: `plain  ok     -     ${'-'.padEnd(w)}  0/1    Ns ago  0    ${VERSION}`,
      };
      assert.equal(text.stdout.replace(/\b\d+s ago/g, 'Ns ago').split('\n'), [
        `UNIT   STATE  SAFE  ${'ALARM'.padEnd(w)}  STALE  HEARD   LAG  VERSION`,
        ...(standing ? [lines.scope, lines.plain] : [lines.plain, lines.scope]),
        `2 unit(s): 0 silent, 0 with stale readings, 2 ok${standing ? `; 1 with alarms (${cell.endsWith("!") ? 1 : 0} unacked)` : ''}`,
        '',
      ], what);
    }
  });
});

test('fresh first carries the alarms: a batch the database keeps refusing, the view\'s transaction writes the raised alarm', async () => {
  const since = new Date().toISOString();
  await withTestDaemon({ flags: { unitId: 'poisoned' }, config: sink('fp') + ALARMS }, async (d) => {
    await post(d, 'weather', { wind: 10 });
    await caughtUp(d.url, 'db');
    await rowBecomes('fp', 'poisoned', since, { alarm_severity: 'none', alarm_unacked: 0, alarm_id: null, judged: true });
    // every event refused from now on: only the current view's transactions (fresh first before each retry) go through
    await pg.query(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'refused'; END$$;
      CREATE TRIGGER refuse BEFORE INSERT ON fp FOR EACH ROW EXECUTE FUNCTION refuse()`);
    await post(d, 'weather', { wind: 45 });
    await rowBecomes('fp', 'poisoned', since, { alarm_severity: 'serious', alarm_unacked: 1, alarm_id: 'wind', judged: true });
    assert.equal(await pg.query(`SELECT count(*)::int AS n FROM fp WHERE unit = 'poisoned' AND type = 'meridian.alarm'`), [{ n: 0 }]);
    await pg.query('DROP TRIGGER refuse ON fp');
    await caughtUp(d.url, 'db');
  });
});

test('after an outage: an alarm raised while the database was down is in the units row once it is back', async () => {
  const since = new Date().toISOString();
  await withTestDaemon({ flags: { unitId: 'outage' }, config: sink('fo') + ALARMS }, async (d) => {
    await post(d, 'weather', { wind: 10 });
    await caughtUp(d.url, 'db');
    pg.stop();
    try {
      await post(d, 'weather', { wind: 45 });
      await post(d, 'dome', { t: 45 });
      await waitFor('the sink to fail', async () => ((await request(d.url, '/status')).json.forward[0].last_error !== null ? true : undefined));
    } finally {
      pg.start();
    }
    await rowBecomes('fo', 'outage', since, { alarm_severity: 'critical', alarm_unacked: 2, alarm_id: 'dome', judged: true });
    await caughtUp(d.url, 'db');
  });
});

test('a unit killed -9 with an alarm standing: its alarm as of last heard, marked ?, unjudged in --json', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'meridian.toml');
  fs.writeFileSync(config, sink('fk') + ALARMS);
  const since = new Date().toISOString();
  const d = await spawnDaemon({ siteDir: path.join(dir, 'site'), args: ['--config', config, '--unit-id', 'gone'] });
  try {
    await postEvent(d.url, { type: 'weather', data: { wind: 45 } });
    await rowBecomes('fk', 'gone', since, { alarm_severity: 'serious', alarm_unacked: 1, alarm_id: 'wind', judged: true });
    d.child.kill('SIGKILL');
    assert.is(await d.exited, 'SIGKILL');
    // --silent-after takes at least 20 s (an idle unit writes its line every 10 s)
    const silent = await waitFor('the unit to be silent', async () => {
      const units = await fleetJson('fk', ['--silent-after', '20']);
      return units[0]!.state === 'silent' ? units : undefined;
    }, 45_000);
    const at = (silent[0]!.alarm as { at: string }).at;
    assert.equal(silent, [{ unit: 'gone', state: 'silent', alarm: { severity: 'serious', unacked: 1, id: 'wind', at, unjudged: true } }]);
    const text = await cli(['fleet', '--db', pg.url, '--table', 'fk', '--silent-after', '20']);
    assert.is(text.code, 4);
    // the HEARD column is as wide as its age (20s ago or more): columns compared with their spaces as one
    const lines = text.stdout.replace(/\b\d+s ago/g, 'Ns ago').split('\n').map((l) => l.replace(/ +/g, ' '));
    assert.equal(lines.slice(0, 3), [
      'UNIT STATE SAFE ALARM STALE HEARD LAG VERSION',
      `gone silent - serious!? 0/2 Ns ago 0 ${VERSION}`,
      '1 unit(s): 1 silent, 0 with stale readings, 0 ok',
    ]);
  } finally {
    d.child.kill('SIGKILL');
    await d.exited;
    removeDir(dir);
  }
});

test.run();
