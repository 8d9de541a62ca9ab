import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon } from './helpers/daemon.js';
import { caughtUp, QUICK, sinkStatus, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { fillDisk, removeDir, tempDir } from './helpers/tmp.js';

// A sink whose cursor cannot be written (its directory on a full tmpfs; needs root to mount,
// else the test says so and checks nothing): /status says failing with the reason while it
// delivers, no temp file is left, and once there is room again the cursor is written and ok.

const siteDir = tempDir();
const forwardDir = path.join(siteDir, '.meridian', 'forward');
fs.mkdirSync(forwardDir, { recursive: true });
let why: string | undefined;
try {
  if (process.platform !== 'linux') throw new Error('not Linux');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', forwardDir], { stdio: 'pipe' });
} catch (error) {
  why = String((error as { stderr?: Buffer }).stderr ?? error).trim();
}

if (why !== undefined) {
  process.stderr.write(`forward-cursor-full: not run: cannot mount a tmpfs (${why})\n`);
  removeDir(siteDir);
} else {
  test('a cursor that cannot be written: failing with the reason, no temp file; ok again once written', async () => {
    const peer = await startPeer();
    const cursorFile = path.join(forwardDir, 'peer.cursor.json');
    const filler = path.join(forwardDir, 'filler');
    try {
      fillDisk(filler);
      const d = await startTestDaemon({ siteDir, forward: sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`) });
      try {
        for (let i = 1; i <= 3; i++) await postEvent(d.url, { type: 'a', data: i });
        const reason = `could not write ${cursorFile} (ENOSPC: no space left on device, write); records may be sent again after a restart`;
        const status = await waitFor('the cursor failure in /status', async () => {
          const s = await sinkStatus(d.url, 'peer');
          return s.delivered === 3 && s.state !== 'ok' ? s : undefined;
        });
        assert.equal({ state: status.state, last_error: status.last_error, lag: status.lag_events }, { state: 'failing', last_error: reason, lag: 0 });
        // a write may be under way (its temp file there for a moment): none is left once it failed
        await waitFor('no temp file left', () => (JSON.stringify(fs.readdirSync(forwardDir).sort()) === '["filler"]' ? true : undefined), 5000);
        assert.is(d.logs.filter((l) => l.includes(`sink peer: ${reason}`)).length, 1, 'logged once');

        fs.unlinkSync(filler);
        await postEvent(d.url, { type: 'a', data: 4 });
        const ok = await caughtUp(d.url, 'peer');
        assert.equal({ state: ok.state, last_error: ok.last_error, delivered: ok.delivered }, { state: 'ok', last_error: null, delivered: 4 });
        await waitFor('the cursor on disk at seq 4', () => (JSON.parse(fs.readFileSync(cursorFile, 'utf8')).streams.site.seq === 4 ? true : undefined));
      } finally {
        await d.close();
      }
    } finally {
      await peer.down();
      execFileSync('umount', [forwardDir]);
      removeDir(siteDir);
    }
  });
}

test.run();
