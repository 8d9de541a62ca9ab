import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { freePort } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A token that is refused is never printed (finding 9), and settings refused as finding 14
// asks (an --allowed-hosts entry that names nothing): the start-up error (flag or
// MERIDIAN_TELEMETRY_TOKEN) and a client command's error say "(not shown)", like the sink
// header errors. The real CLI as a child process.

const SECRET = 's3cr3t-T0ken with-space';
const ASCII = 'must be a token of visible ASCII characters without spaces; got "(not shown)"';

// [name, args after `telemetry`, environment, stderr]
const ROWS: Array<[string, (site: string) => string[], Record<string, string>, string]> = [
  ['run --token with a space', (site) => ['run', '--site-dir', site, '--token', SECRET], {},
    `meridian: --token ${ASCII} (see "meridian telemetry run --help")\n`],
  ['run with the variable holding a space', (site) => ['run', '--site-dir', site], { MERIDIAN_TELEMETRY_TOKEN: SECRET },
    `meridian: MERIDIAN_TELEMETRY_TOKEN ${ASCII} (see "meridian telemetry run --help")\n`],
  ['run with the variable holding a control character', (site) => ['run', '--site-dir', site], { MERIDIAN_TELEMETRY_TOKEN: 's3cr3t\u0007' },
    `meridian: MERIDIAN_TELEMETRY_TOKEN ${ASCII} (see "meridian telemetry run --help")\n`],
  ['status --token with a space', () => ['status', '--token', SECRET], {},
    `meridian: --token ${ASCII} (see "meridian telemetry status --help")\n`],
  // finding 14: an --allowed-hosts entry no client would send is refused, named
  ['run --allowed-hosts with .example.org', (site) => ['run', '--site-dir', site, '--allowed-hosts', 'obs1,.example.org'], {},
    `meridian: --allowed-hosts must be host names or addresses separated by commas (obs1,obs1.example.org,192.0.2.7); ".example.org" is not one; got "obs1,.example.org" (see "meridian telemetry run --help")\n`],
  ['run with the variable 999.1.1.1', (site) => ['run', '--site-dir', site], { MERIDIAN_TELEMETRY_ALLOWED_HOSTS: '999.1.1.1' },
    `meridian: MERIDIAN_TELEMETRY_ALLOWED_HOSTS must be host names or addresses separated by commas (obs1,obs1.example.org,192.0.2.7); "999.1.1.1" is not one; got "999.1.1.1" (see "meridian telemetry run --help")\n`],
];

for (const [name, args, env, stderr] of ROWS) {
  test(`${name}: exit 2, one line, no token shown`, async () => {
    const site = tempDir();
    try {
      const run = await cli(['telemetry', ...args(site)], { bin: 'meridian', env });
      assert.equal(run, { code: 2, stdout: '', stderr });
      assert.not.ok(run.stderr.includes('s3cr3t'));
    } finally {
      removeDir(site);
    }
  });
}

test('run --token of blanks is no token: bound to 0.0.0.0 it refuses to start (exit 1), nothing opened', async () => {
  const site = tempDir();
  try {
    const port = String(await freePort());
    const run = await cli(['telemetry', 'run', '--host', '0.0.0.0', '--port', port, '--site-dir', site, '--token', '   '], { bin: 'meridian' });
    assert.equal([run.code, run.stdout], [1, '']);
    assert.match(run.stderr, /^\S+ ERROR refusing to bind 0\.0\.0\.0 without a token: set --token or MERIDIAN_TELEMETRY_TOKEN, bind localhost, or accept an open daemon with --allow-unauthenticated\n$/);
  } finally {
    removeDir(site);
  }
});

test.run();
