import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { spawnDaemon } from './helpers/daemon.js';
import { QUICK, waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// `telemetry fleet retire U` while U was only paused (issue 27, tester K): its sink saw no failed
// delivery, so nothing sent its whole view again, and U came back with no current rows. The sink
// now sees its units row inserted anew (it had written it before) and sends the whole view again.

let db: TestPostgres;
test.before(async () => { db = await startPostgres(); });
test.after(() => db.remove());

test('a unit paused (SIGSTOP), retired, resumed (SIGCONT): with its next event its whole view is back, equal to its /current', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'forward.toml');
  fs.writeFileSync(config, `[[sink]]\nname = "db"\nurl = "${db.url}"\ntable = "paused"\n${QUICK}\n`);
  const d = await spawnDaemon({ siteDir: path.join(dir, 'site'), args: ['--unit-id', 'nap', '--config', config] });
  try {
    for (const [type, data] of [['weather', 1], ['dome', 'open'], ['power', 230]] as const) await postEvent(d.url, { type, data });
    const rows = () => db.query<{ type: string; line: string }>(`SELECT type, line FROM paused_current WHERE unit = 'nap' ORDER BY type`);
    // (the sink makes the tables at its first delivery)
    await waitFor('the current rows', async () => ((await rows().catch(() => [])).length === 3 ? true : undefined));
    d.child.kill('SIGSTOP');
    try {
      // paused past the units row's once-a-second slot (a real pause lasts --silent-after, 20 s at least),
      // then silent for the database as after such a pause, and retired
      await waitFor('a pause of 1.5 s', async () => ((await db.query<{ long: boolean }>(
        `SELECT now() - last_heard > interval '1.5 s' AS long FROM paused_units`))[0]!.long ? true : undefined), 10_000);
      await db.query(`UPDATE paused_units SET last_heard = now() - interval '10 min'`);
      const retire = await cli(['fleet', 'retire', 'nap', '--db', db.url, '--table', 'paused']);
      assert.equal([retire.code, retire.stdout.replace(/\d+m\d+s ago/, 'AGO'), retire.stderr], [0,
        'retired nap: last heard AGO; its line and 3 current reading(s) removed, its events kept; it is listed again when it is heard again\n', '']);
    } finally {
      d.child.kill('SIGCONT');
    }
    await postEvent(d.url, { type: 'weather', data: 2 });
    const current = (await request(d.url, '/current')).json.current as Record<string, unknown>;
    const back = await waitFor('the whole view back', async () => {
      const r = await rows();
      return r.length === 3 ? r : undefined;
    }, 5000);
    assert.equal(Object.fromEntries(back.map((r) => [r.type, JSON.parse(r.line)])), current);
    assert.equal(await db.query(`SELECT unit FROM paused_units`), [{ unit: 'nap' }]);
  } finally {
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(dir);
  }
});

test.run();
