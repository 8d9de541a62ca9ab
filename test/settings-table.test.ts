import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SWITCH_OPTIONS, VALUE_OPTIONS } from '../cli/options.js';
import { pathToFileURL } from 'node:url';
import { resolveDaemonConfig } from '../lib/config.js';
import { DAEMON_SETTINGS, settingHelp, type DaemonFlags } from '../lib/settings.js';
import { cli } from './helpers/cli.js';
import { ROOT } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The one settings table (issue 23): every row reaches `telemetry run --help`,
// docs/configuration.md, the CLI's option lists and the launcher's command line.

// the built package, as a user imports it (execa loads from dist/, not through tsx)
const load = (): Promise<typeof import('../dist/index.js')> => import(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href);

const CONFIGURATION = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');

// a value other than the default for every setting, so that every row has words on the launcher's line
const EVERY: Required<DaemonFlags> = {
  host: '127.0.0.2', port: '7001', siteDir: '/placeholder', token: 't0k3n', allowUnauthenticated: true, allowedHosts: 'obs1,192.0.2.7',
  fsync: 'always', maxAge: 'weather=180,*=600', maxBody: '2048', shutdownTimeout: '1.5', verbose: true, accessLogs: true,
  logFormat: 'json', compressAfter: '2d', retain: '36h', unitId: 'dome-2', rollups: 'off',
};

test('the table has one row per DaemonFlags key, each key its flag in camelCase', () => {
  assert.equal(DAEMON_SETTINGS.map((s) => s.key).sort(), Object.keys(EVERY).sort());
  for (const s of DAEMON_SETTINGS) assert.is(s.key, s.flag.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase()), s.flag);
});

test('every row is an option of telemetry run, with its help (variable and default) in --help', async () => {
  const help = await cli(['run', '--help']);
  assert.is(help.code, 0);
  for (const s of DAEMON_SETTINGS) {
    assert.match(help.stdout, new RegExp(`^ {4}${s.flag} +${settingHelp(s).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'), s.flag);
    for (const variable of s.variables.slice(0, 1)) assert.ok(settingHelp(s).includes(`env ${variable}`), s.flag);
  }
});

test('every row is in docs/configuration.md\'s table with each of its variables', () => {
  for (const s of DAEMON_SETTINGS) {
    const row = CONFIGURATION.split('\n').find((line) => line.startsWith('| ') && line.includes(`| \`${s.flag}\` |`));
    assert.ok(row, `${s.flag} has a row`);
    for (const variable of s.variables) assert.ok(row!.includes(`\`${variable}\``), `${s.flag}: ${variable}`);
    if (s.variables.length === 0) assert.ok(row!.includes(`| \`${s.flag}\` | - |`), `${s.flag} says it has no variable`);
  }
});

test('every row is in the CLI\'s option lists by its kind', () => {
  for (const s of DAEMON_SETTINGS) {
    assert.ok((s.kind === 'value' ? VALUE_OPTIONS : SWITCH_OPTIONS).includes(s.flag.slice(2)), s.flag);
    assert.not.ok((s.kind === 'value' ? SWITCH_OPTIONS : VALUE_OPTIONS).includes(s.flag.slice(2)), s.flag);
  }
});

test('the launcher hands every setting to its child (the token in the environment only), and the child resolves the same config', async () => {
  const { TelemetryServer } = await load();
  const siteDir = tempDir();
  try {
    const server = new TelemetryServer({ ...EVERY, siteDir, env: {} });
    const args = server.args.slice(server.args.indexOf('run') + 1);
    const given: Record<string, string | boolean> = {};
    for (const s of DAEMON_SETTINGS) {
      const at = args.indexOf(s.flag);
      if (s.secret) {
        assert.is(at, -1, `${s.flag} is not on the command line`);
        assert.not.ok(args.includes(EVERY.token), 'the token is not on the command line');
        continue;
      }
      assert.ok(at !== -1, `${s.flag} is on the command line`);
      given[s.key] = s.kind === 'switch' ? true : args[at + 1]!;
    }
    assert.equal(resolveDaemonConfig(given, { MERIDIAN_TELEMETRY_TOKEN: EVERY.token }, '/home/x'), server.config);
  } finally {
    removeDir(siteDir);
  }
});

test.run();
