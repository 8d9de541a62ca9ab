import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A token that is refused is never printed (finding 9): the start-up error (flag or
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
];

for (const [name, args, env, stderr] of ROWS) {
  test(`${name}: exit 2, the token not shown`, async () => {
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

test.run();
