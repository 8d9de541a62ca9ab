import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Today's site file moved away (or deleted) while the daemon writes to it: the next write
// turn finds it, says so, and goes on in a new file at the path; nothing more goes to the moved file.

const seqsOf = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l).seq);

test('today\'s site file moved away while running: a WARN, a new file at the path, the moved one untouched', async () => {
  for (const how of ['moved', 'deleted'] as const) {
    const away = tempDir();
    const d = await startTestDaemon();
    try {
      for (let i = 1; i <= 3; i++) await postEvent(d.url, { type: 'a', data: i });
      const name = fs.readdirSync(d.siteDir).find((f) => f.startsWith('site_'))!;
      const today = path.join(d.siteDir, name);
      if (how === 'moved') fs.renameSync(today, path.join(away, name)); else fs.unlinkSync(today);
      const answers = [];
      for (let i = 4; i <= 5; i++) answers.push((await postEvent(d.url, { type: 'a', data: i })).json.seq);
      assert.equal(answers, [4, 5], how);
      assert.equal(seqsOf(today), [4, 5], `${how}: the new file at the path`);
      if (how === 'moved') assert.equal(seqsOf(path.join(away, name)), [1, 2, 3], 'the moved file holds what it held');
      assert.equal(d.logs.filter((l) => l.includes('moved away')).map((l) => l.replace(/^\S+Z /, '')),
        [`WARN ${today} was moved away or deleted while the daemon wrote to it (the file moved holds the site events up to site:3); the next events go to a new file of that name`], how);
      const page = await request(d.url, '/history?cursor=site:3');
      assert.equal(page.json.events.map((e: { seq: number }) => e.seq), [4, 5], `${how}: history after site:3`);
    } finally {
      await d.close();
      removeDir(d.siteDir);
      removeDir(away);
    }
  }
});

test.run();
