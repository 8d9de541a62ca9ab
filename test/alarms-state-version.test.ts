import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { alarmSite } from './helpers/alarm-config.js';
import { freePort } from './helpers/daemon.js';
import { removeDir } from './helpers/tmp.js';

// alarms.json of a version this daemon does not read (hostile tester I, finding 5: version 2
// was taken as version 1) stops the daemon at start (exit 1, one line naming the file and the
// version), and the file is left as it was: set aside as damaged it would lose every alarm's
// state, read as version 1 it could be misread.

const CONFIG = '[[alarm]]\nid = "wind"\nseverity = "critical"\nwhen = "wind.data.v > 40"\n';

test('an alarm state file of an unknown version: the daemon does not start, the file is kept', async () => {
  for (const version of [2, 0, '1', null]) {
    const { dir, site, file, args } = alarmSite(CONFIG);
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const text = JSON.stringify({ version, alarms: {}, journal: { n: 0, pending: [] } });
      fs.writeFileSync(file, text);
      const run = await cli(['run', '--port', String(await freePort()), '--site-dir', site, ...args]);
      const line = `ERROR alarm state ${file} is of version ${JSON.stringify(version)}, which this daemon does not read (it reads version 1; written by another meridian?): ` +
        'start the meridian that wrote it, or move the file aside to start with every alarm normal';
      assert.is(run.code, 1, String(version));
      assert.ok(run.stderr.trimEnd().endsWith(line), run.stderr);
      assert.is(fs.readFileSync(file, 'utf8'), text);
      assert.equal(fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith('alarms.json')), ['alarms.json']);
    } finally {
      removeDir(dir);
    }
  }
});

test.run();
