import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A kill -9 in the middle of writing a state file leaves `<file>.tmp-<pid>` beside it; the next
// start removes those of processes no longer running (said in an INFO line each), under
// .meridian/ and its directories, and nothing else: a live process's temp file and names of
// another pattern are kept.

test('leftover state temp files of dead processes are removed at start, nothing else', async () => {
  const site = tempDir();
  const state = path.join(site, '.meridian');
  fs.mkdirSync(path.join(state, 'forward'), { recursive: true });
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  const left = ['alarms.json', 'snapshot.json', 'learned-limits.json', 'forward/hook.cursor.json'].map((f) => path.join(state, `${f}.tmp-${dead}`));
  const kept = [`alarms.json.tmp-${process.pid}`, 'alarms.json.tmp-12x', 'notes.tmp', 'forward/hook.cursor.json.next'].map((f) => path.join(state, f));
  for (const f of [...left, ...kept]) fs.writeFileSync(f, '{"half":');
  const d = await spawnDaemon({ siteDir: site });
  try {
    for (const f of left) {
      assert.not.ok(fs.existsSync(f), f);
      assert.ok(d.stderr().includes(` INFO removed ${f}, a temp file left by a process that died writing ${path.basename(f).replace(/\.tmp-\d+$/, '')} (the file itself is as last written whole)\n`), d.stderr());
    }
    for (const f of kept) assert.ok(fs.existsSync(f), f);
  } finally {
    d.child.kill('SIGKILL');
    await d.exited;
    removeDir(site);
  }
});

test.run();
