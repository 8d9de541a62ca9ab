import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DAEMON_NODE_FLAGS } from '../launcher/node-flags.js';
import { MERIDIAN_BIN, ROOT, spawnDaemon, TELEMETRY_BIN } from './helpers/daemon.js';
import { removeDir } from './helpers/tmp.js';

// The daemon runs with the same Node flags however it is started: the executables (their
// shebang), `npm start`, and the launcher behind `run --detach` (its args: cli-launcher.test.ts).

const FLAGS = DAEMON_NODE_FLAGS.join(' ');

test('the executables\' shebang and npm start carry the daemon\'s Node flags', () => {
  assert.equal(DAEMON_NODE_FLAGS, ['--max-semi-space-size=8', '--heap-growing-percent=50']);
  for (const bin of [MERIDIAN_BIN, TELEMETRY_BIN]) {
    assert.is(fs.readFileSync(bin, 'utf8').split('\n')[0], `#!/usr/bin/env -S node ${FLAGS}`, bin);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.is(pkg.scripts.start, `node ${FLAGS} dist/cli/meridian.js telemetry run`);
});

test('a daemon started by running the executable itself has them on its command line', async () => {
  const d = await spawnDaemon({ asExecutable: true });
  try {
    const argv = fs.readFileSync(`/proc/${d.child.pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    assert.equal(argv.slice(1, 2 + DAEMON_NODE_FLAGS.length), [...DAEMON_NODE_FLAGS, MERIDIAN_BIN]);
    d.child.kill('SIGTERM');
    assert.is(await d.exited, 0);
  } finally {
    if (d.child.exitCode === null) d.child.kill('SIGKILL');
    removeDir(d.siteDir);
  }
});

test.run();
