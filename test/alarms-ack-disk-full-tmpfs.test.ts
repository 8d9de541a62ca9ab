import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { alarmSite } from './helpers/alarm-config.js';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { postEvent, request } from './helpers/http.js';
import { fillDisk, mountTmpfsAt, removeDir } from './helpers/tmp.js';

// An acknowledgement or a shelve on a really full disk (a 1 MiB tmpfs on `.meridian`,
// needs root; where it cannot be mounted the test says so and checks nothing) is refused with
// the full disk's own code, 503 DISK_FULL, as every write request is, never as INTERNAL nor as
// a vaguer STORAGE_UNAVAILABLE; the alarm is left as it was.

const CONFIG = '[[alarm]]\nid = "wind"\nseverity = "critical"\nwhen = "wind.data.v > 40"\nmessage = "wind high"\n';

const { dir, site, args } = alarmSite(CONFIG);
const dotDir = path.join(site, '.meridian');
fs.mkdirSync(dotDir, { recursive: true });
const why = process.platform === 'linux' ? mountTmpfsAt(dotDir, '1m') : 'not Linux';

if (why !== undefined) {
  process.stderr.write(`alarms-ack-disk-full-tmpfs: not run: cannot mount a tmpfs (${why})\n`);
  removeDir(dir);
} else {
  test('ack and shelve on a full disk: 503 DISK_FULL, the alarm left as it was', async () => {
    let d: ChildDaemon | undefined;
    try {
      d = await spawnDaemon({ siteDir: site, args });
      await postEvent(d.url, { type: 'wind', data: { v: 50 } });
      await waitFor('wind raised', async () => ((await request(d!.url, '/alarms')).json.alarms[0].state === 'unack') || undefined);
      fillDisk(path.join(dotDir, 'filler'));
      const error = 'the alarm state could not be written (ENOSPC)';
      const rows: [string, string, object | undefined][] = [
        ['POST', '/alarms/wind/ack', { by: 'ops' }],
        ['POST', '/alarms/wind/shelve', { by: 'ops', for_s: 3600 }],
      ];
      for (const [method, url, body] of rows) {
        const answer = await request(d.url, url, { method, body });
        assert.equal([answer.status, answer.json], [503, { detail: `The disk is full: alarm wind was left as it was: ${error}.`, code: 'DISK_FULL' }], url);
      }
      assert.is((await request(d.url, '/alarms')).json.alarms[0].state, 'unack');
      assert.is(/\n\s+at /.test(d.stderr()), false, d.stderr());
    } finally {
      if (d && d.child.exitCode === null) {
        d.child.kill('SIGTERM');
        await d.exited;
      }
      execFileSync('umount', [dotDir]);
      removeDir(dir);
    }
  });
  test.run();
}
