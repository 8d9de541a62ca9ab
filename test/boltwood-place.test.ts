import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon } from '../daemon/server.js';
import { resolveBoltwood } from '../daemon/outputs/boltwood-config.js';
import { resolveDaemonConfig } from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { createLogger } from '../lib/log.js';
import { systemClock } from '../lib/time.js';
import { cli } from './helpers/cli.js';
import { freePort } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The Boltwood file is rewritten by renaming a new file over its path: a path inside the site
// directory (a day file, .meridian/), the config file itself or the log file would replace
// recorded events or the daemon's own files (hostile tester F, finding 1). Each is refused at
// start-up, exit 2, before anything is opened; the day file is untouched. The path is named with
// its symbolic links resolved.

const REASON = (what: string) => `must be a file outside the site directory, not the config file or the log file (it is rewritten by renaming a new file over it; this one is ${what})`;

// [name, the Boltwood path from the dir, extra run args from the dir, what the message says it is]
const ROWS: Array<[string, (dir: string) => string, (dir: string) => string[], (dir: string) => string]> = [
  ['a day file', (d) => path.join(d, 'site', 'site_20261124.ndjson'), () => [], (d) => `inside the site directory ${path.join(d, 'site')}`],
  ['a state file', (d) => path.join(d, 'site', '.meridian', 'snapshot.json'), () => [], (d) => `inside the site directory ${path.join(d, 'site')}`],
  ['the site directory through a symbolic link', (d) => path.join(d, 'link', 'clarity.txt'), () => [], (d) => `inside the site directory ${path.join(d, 'site')}`],
  ['the config file', (d) => path.join(d, 'meridian.toml'), () => [], () => 'the config file'],
  ['the log file', (d) => path.join(d, 'daemon.log'), (d) => ['--log-file', path.join(d, 'daemon.log')], () => 'the log file'],
];

for (const [name, file, extra, what] of ROWS) {
  test(`[boltwood] path at ${name}: refused at start, exit 2, the day file untouched`, async () => {
    const dir = fs.realpathSync(tempDir());
    try {
      const site = path.join(dir, 'site');
      fs.mkdirSync(site);
      fs.symlinkSync(site, path.join(dir, 'link'));
      const day = path.join(site, 'site_20261124.ndjson');
      const line = '{"seq":1,"ts":"2026-11-24T20:00:00.000Z","type":"w","data":{"i":1},"meta":{}}\n';
      fs.writeFileSync(day, line);
      const config = path.join(dir, 'meridian.toml');
      fs.writeFileSync(config, `[boltwood]\npath = "${file(dir)}"\nevery_s = 1\n`);
      const run = await cli(['telemetry', 'run', '--port', String(await freePort()), '--site-dir', site, '--config', config, ...extra(dir)], { bin: 'meridian' });
      assert.equal(run, { code: 2, stdout: '', stderr: `meridian: ${config}: boltwood: path ${REASON(what(dir))}; got "${file(dir).replace(`${dir}/link/`, `${dir}/site/`)}" (see "meridian telemetry run --help")\n` });
      assert.is(fs.readFileSync(day, 'utf8'), line);
      assert.is(fs.readFileSync(config, 'utf8').startsWith('[boltwood]'), true);
    } finally {
      removeDir(dir);
    }
  });
}

test('startDaemon itself refuses a [boltwood] path inside the site directory, before the directory is touched', async () => {
  const dir = fs.realpathSync(tempDir());
  try {
    const site = path.join(dir, 'site');
    const config = resolveDaemonConfig({ port: 1, siteDir: site }, {}, dir);
    const boltwood = resolveBoltwood({ path: path.join(site, 'clarity.txt') }, 'meridian.toml');
    const error = await startDaemon(config, { clock: systemClock, logger: createLogger(() => {}, 'error', Date.now), boltwood })
      .then((d) => d.close().then(() => undefined), (e: unknown) => e);
    assert.instance(error, ConfigError);
    assert.is((error as Error).message, `meridian.toml: boltwood: path ${REASON(`inside the site directory ${site}`)}; got "${path.join(site, 'clarity.txt')}"`);
    assert.is(fs.existsSync(site), false);
  } finally {
    removeDir(dir);
  }
});

test.run();
