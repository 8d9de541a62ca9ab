import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon } from './helpers/daemon.js';
import { FaultyFs } from './helpers/faulty-fs.js';
import { waitFor } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The periodic snapshot refused by the file system (`.meridian/` read-only: EROFS, or EACCES)
// is said in one line naming the file and the errno, once until it is written again (hostile
// tester O's minor item: a stack trace every interval), and its recovery is said too. Events
// are recorded all along (the snapshot is a shortcut for the start, not the record).

test('a snapshot the file system refuses: one line, no stack, once until it is written again, then said written', async () => {
  const siteDir = tempDir();
  const faulty = new FaultyFs();
  let refusing = false;
  faulty.fault = (call, file) => (refusing && file.startsWith('snapshot') && (call === 'write' || call === 'rename') ? 'EROFS' : undefined);
  const d = await startTestDaemon({ siteDir, fs: faulty.fs, snapshotIntervalMs: 20 });
  try {
    const attempts = () => faulty.calls.filter((c) => /^open snapshot/.test(c)).length;
    refusing = true;
    const before = attempts();
    // three attempts refused, each after a change of the view
    for (let i = 1; i <= 3; i++) {
      assert.is((await postEvent(d.url, { type: 'weather', data: { n: i } })).status, 200);
      await waitFor(`snapshot attempt ${i}`, async () => (attempts() >= before + i ? true : undefined));
    }
    const file = path.join(siteDir, '.meridian', 'snapshot.json');
    const said = d.logs.filter((l) => l.includes('snapshot'));
    assert.equal(said.map((l) => l.replace(/^\S+ /, '')), [
      `ERROR could not write the snapshot ${file} (EROFS); a start replays the files until it can be written (said once until it is)`,
    ]);
    refusing = false;
    assert.is((await postEvent(d.url, { type: 'weather', data: { n: 4 } })).status, 200);
    await waitFor('written again', async () => (d.logs.some((l) => l.endsWith(`INFO the snapshot ${file} is written again`)) ? true : undefined));
    assert.ok(d.logs.every((l) => !l.includes('\n')), 'no stack in the log');
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test.run();
