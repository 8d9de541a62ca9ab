import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DAEMON_NODE_FLAGS } from '../daemon/node-flags.js';
import { cleanEnv, freePort, MERIDIAN_BIN, ROOT, TELEMETRY_BIN } from './helpers/daemon.js';
import { cli } from './helpers/cli.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The daemon runs with the same Node flags however it is started: the executables (their
// shebang), `npm start`, and the launcher behind `run --detach` (its args: cli-launcher.test.ts).

const FLAGS = DAEMON_NODE_FLAGS.join(' ');

test('the executables\' shebang and npm start carry the daemon\'s Node flags', () => {
  assert.equal(DAEMON_NODE_FLAGS, ['--max-semi-space-size=8']);
  for (const bin of [MERIDIAN_BIN, TELEMETRY_BIN]) {
    assert.is(fs.readFileSync(bin, 'utf8').split('\n')[0], `#!/usr/bin/env -S node ${FLAGS}`, bin);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.is(pkg.scripts.start, `node ${FLAGS} dist/cli/meridian.js telemetry run`);
});

test('a daemon started by running the executable itself has them on its command line', async () => {
  const siteDir = tempDir();
  const port = await freePort();
  const child = spawn(TELEMETRY_BIN, ['run', '--host', '127.0.0.1', '--port', String(port), '--site-dir', siteDir],
    { env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => { err += c.toString(); if (err.includes('listening on')) resolve(); });
      child.once('exit', (code) => reject(new Error(`exited ${code} before listening:\n${err}`)));
    });
    const argv = fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    assert.equal(argv.slice(1, 3), [...DAEMON_NODE_FLAGS, TELEMETRY_BIN]);
    const stopped = await cli(['stop', '--host', '127.0.0.1', '--port', String(port)]);
    assert.is(stopped.code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    removeDir(siteDir);
  }
});

test.run();
