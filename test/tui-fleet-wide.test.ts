import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../lib/version.js';
import { withTestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinksOf } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { Terminal } from './helpers/tmux.js';

// The fleet console's UNIT column is at most 20 columns, a longer unit id cut with … (hostile
// tester H, finding 6): a unit of a 64-character id leaves STALE, HEARD, LAG and VERSION whole at 80.

const LONG = `observatory-north-dome-${'x'.repeat(41)}`;

let pg: TestPostgres;
test.before(async () => {
  pg = await startPostgres();
  for (const unitId of [LONG, 'short']) {
    await withTestDaemon({ flags: { unitId }, forward: sinksOf(`[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "wide"\n${QUICK}`) }, async (d) => {
      await postEvent(d.url, { type: 'weather', data: 1 });
      await caughtUp(d.url, 'db');
    });
  }
});
test.after(() => pg.remove());

test('80x24: a 64-character unit id is cut to 20 columns with …, every other column whole', async () => {
  assert.is(LONG.length, 64);
  const t = new Terminal();
  try {
    t.run(['fleet', '--follow', '--db', pg.url, '--table', 'wide'], { width: 80, height: 24 });
    const screen = await t.waitFor('the units', (s) => /^short /m.test(s));
    const lines = screen.split('\n').slice(2, 5).map((l) => l.trimEnd().replace(/\b\d+s ago/, 'Ns ago'));
    assert.equal(lines, [
      'UNIT                  STATE  SAFE  ALARM  STALE  HEARD   LAG  VERSION',
      `observatory-north-d…  ok     -     -      0/1    Ns ago  0    ${VERSION}`,
      `short                 ok     -     -      0/1    Ns ago  0    ${VERSION}`,
    ]);
  } finally {
    t.kill();
  }
});

test.run();
