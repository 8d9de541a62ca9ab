import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, ndjson, QUICK, sinksOf } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Two daemons with one unit id send events with the same key (stream, seq, ts) but other lines
// (hostile tester H, finding 1): the second one's are never counted delivered silently; they
// go to its dead-letter file with a reason naming the shared unit id. The same line sent again
// (a retry, a cursor lost) stays a silent no-op: each event once.

let pg: TestPostgres;
test.before(async () => { pg = await startPostgres(); });
test.after(() => pg.remove());

const SINK = () => `[[sink]]\nname = "db"\nurl = "${pg.url}"\ntable = "clash"\n${QUICK}`;
const TS = (i: number) => `2026-11-25T05:00:0${i}.000Z`;
const deadFile = (siteDir: string) => path.join(siteDir, '.meridian', 'forward', 'db.dead.ndjson');
const reason = (seq: number) => `the table already holds another event at site:${seq} (ts ${TS(seq)}) of unit "dupe": another daemon forwards with unit id "dupe"; give each unit its own --unit-id`;

test('an event whose key another daemon with the same unit id holds is dead-lettered with the reason, never delivered silently; a retry of the same line is not', async () => {
  const dirs = [tempDir(), tempDir()];
  const open = (siteDir: string) => startTestDaemon({ siteDir, flags: { unitId: 'dupe' }, forward: sinksOf(SINK()) });
  try {
    for (const [n, siteDir] of dirs.entries()) {
      const d = await open(siteDir);
      try {
        for (let i = 1; i <= 3; i++) await postEvent(d.url, { type: 'weather', ts: TS(i), data: { daemon: n } });
        const s = await caughtUp(d.url, 'db');
        assert.equal([s.delivered, s.dead_letters], n === 0 ? [3, 0] : [0, 3]);
        if (n === 1) assert.equal(d.logs.filter((l) => l.includes('refused')).length, 3);
      } finally {
        await d.close();
      }
    }
    assert.equal(ndjson(deadFile(dirs[0]!)), []);
    assert.equal(ndjson(deadFile(dirs[1]!)).map((l) => [l.seq, l.reason, l.envelope.data]),
      [1, 2, 3].map((seq) => [seq, reason(seq), { daemon: 1 }]));
    assert.equal(await pg.query('SELECT seq::int, data FROM clash ORDER BY seq'), [1, 2, 3].map((seq) => ({ seq, data: { daemon: 0 } })));
    // the first daemon's cursor lost: its three lines go again, each already held with the same line: no dead letter
    fs.rmSync(path.join(dirs[0]!, '.meridian', 'forward', 'db.cursor.json'));
    const again = await open(dirs[0]!);
    try {
      const s = await caughtUp(again.url, 'db');
      assert.equal([s.delivered, s.dead_letters], [3, 0]);
    } finally {
      await again.close();
    }
    assert.equal(ndjson(deadFile(dirs[0]!)), []);
    assert.equal(await pg.query('SELECT count(*)::int AS n FROM clash'), [{ n: 3 }]);
    const coverage = await cli(['fleet', 'coverage', '--db', pg.url, '--table', 'clash', '--json']);
    assert.is(coverage.code, 0, coverage.stderr);
  } finally {
    for (const dir of dirs) removeDir(dir);
  }
});

test.run();
