import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Every state file found damaged at start-up is listed in /status `damaged` (hostile tester D,
// issue 23, finding N11): the batch journal, the held seqs and the ephemeral readings too, not
// only a WARN in the log.

const NOW = '2026-03-17T20:00:00.000Z';

// [the state file, its garbage, what the log and /status say of it (FILE: its path)]
const ROWS: [string, string, string][] = [
  ['batch.json', 'garbage\n', 'batch journal FILE holds a torn entry (the daemon stopped before writing the batch); nothing to cut'],
  ['held-site.ndjson', 'garbage\n', 'held seqs FILE is damaged (1 line(s) not a seq); readings posted with make_current false may become current'],
  ['ephemeral-site.ndjson', 'garbage\n', 'FILE: skipped a line that is not an envelope at byte 0'],
];

for (const [name, garbage, said] of ROWS) {
  test(`a garbage ${name}: named in the log and in /status damaged, the daemon records on`, async () => {
    const siteDir = tempDir();
    const clock = new ManualClock(NOW);
    let d = await startTestDaemon({ siteDir, clock });
    try {
      assert.is((await postEvent(d.url, { type: 'a', data: 1 })).json.seq, 1);
    } finally {
      await d.close();
    }
    const file = path.join(siteDir, '.meridian', name);
    fs.writeFileSync(file, garbage);
    d = await startTestDaemon({ siteDir, clock });
    try {
      const sentence = said.replace('FILE', file);
      assert.equal(d.logs.filter((l) => l.includes(file)).map((l) => l.slice(25)), [`WARN ${sentence}`]);
      assert.equal((await request(d.url, '/status')).json.damaged, [{ file, reason: sentence }]);
      assert.is((await postEvent(d.url, { type: 'a', data: 2 })).json.seq, 2);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test.run();
