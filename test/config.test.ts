import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addressUrl, resolveClientAddress, resolveDaemonConfig, type DaemonConfig, type DaemonFlags } from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { withTestDaemon } from './helpers/daemon.js';

// The one resolver: flag > environment > default, frozen, errors naming the option.

const HOME = '/home/operator';
const DEFAULTS: DaemonConfig = {
  host: 'localhost', port: 6562, siteDir: '/home/operator/.local/share/meridian/telemetry', token: undefined,
  fsync: 'batch', maxBody: 1048576, verbose: false, accessLogs: false, shutdownTimeoutMs: 3000, logFormat: 'text', compressAfterMs: undefined,
  retainMs: undefined, rollups: true, allowUnauthenticated: false, allowedHosts: [], maxAge: [], zone: 'system', zoneWarning: undefined,
  unitId: 'localhost',
};
const ENV = {
  MERIDIAN_TELEMETRY_HOST: '127.0.0.2', MERIDIAN_TELEMETRY_PORT: '7000',
  MERIDIAN_TELEMETRY_SITE_DIR: '/srv/telemetry', MERIDIAN_TELEMETRY_TOKEN: 'from-env',
};

// what a PANOPTES unit's environment sets for the original service
const PANOPTES = {
  PANOPTES_TELEMETRY_HOST: '0.0.0.0', PANOPTES_TELEMETRY_PORT: '6563', PANOPTES_TELEMETRY_SITE_DIR: '/var/panoptes/telemetry',
};

const RESOLVED: [string, DaemonFlags, Record<string, string>, Partial<DaemonConfig>][] = [
  // [name, flags, env, what differs from DEFAULTS]
  ['defaults', {}, {}, {}],
  ['environment over defaults', {}, ENV, { host: '127.0.0.2', port: 7000, siteDir: '/srv/telemetry', token: 'from-env' }],
  ['flags over environment', { host: '::1', port: '7100', siteDir: '/var/lib/tel', token: 'from-flag' }, ENV,
    { host: '::1', port: 7100, siteDir: '/var/lib/tel', token: 'from-flag' }],
  ['a port flag given as a number', { port: 8080 }, ENV, { host: '127.0.0.2', port: 8080, siteDir: '/srv/telemetry', token: 'from-env' }],
  ['empty environment values count as unset', {}, {
    MERIDIAN_TELEMETRY_HOST: '', MERIDIAN_TELEMETRY_PORT: '', MERIDIAN_TELEMETRY_SITE_DIR: '', MERIDIAN_TELEMETRY_TOKEN: '',
  }, {}],
  ['log format, compression and retention ages', { logFormat: 'json', compressAfter: '2d', retain: '36h' }, {}, { logFormat: 'json', compressAfterMs: 172_800_000, retainMs: 129_600_000 }],
  ['rollups off', { rollups: 'off' }, {}, { rollups: false }],
  ['rollups on', { rollups: 'on' }, {}, {}],
  ['XDG_DATA_HOME gives the default site directory', {}, { XDG_DATA_HOME: '/data' }, { siteDir: '/data/meridian/telemetry' }],
  ['a relative XDG_DATA_HOME is ignored (XDG spec)', {}, { XDG_DATA_HOME: 'data' }, {}],
  ['an empty XDG_DATA_HOME falls back to ~/.local/share', {}, { XDG_DATA_HOME: '' }, {}],
  ['the site directory environment wins over XDG_DATA_HOME', {}, { XDG_DATA_HOME: '/data', MERIDIAN_TELEMETRY_SITE_DIR: '/srv/t' }, { siteDir: '/srv/t' }],
  ['a relative --site-dir is made absolute', { siteDir: 'tel' }, {}, { siteDir: path.resolve('tel') }],
  ['a port of 1', { port: '1' }, {}, { port: 1 }],
  ['a port of 65535', { port: '65535' }, {}, { port: 65535 }],
  ['a port with surrounding spaces', { port: ' 80' }, {}, { port: 80 }],
  ['a port from the environment with a trailing newline', {}, { MERIDIAN_TELEMETRY_PORT: '6000\n' }, { port: 6000 }],
  ['--fsync always', { fsync: 'always' }, {}, { fsync: 'always' }],
  ['--fsync batch', { fsync: 'batch' }, {}, { fsync: 'batch' }],
  ['--fsync off', { fsync: 'off' }, {}, { fsync: 'off' }],
  ['--max-body as a string', { maxBody: '100' }, {}, { maxBody: 100 }],
  ['--shutdown-timeout in seconds', { shutdownTimeout: '1.5' }, {}, { shutdownTimeoutMs: 1500 }],
  ['--shutdown-timeout 0 closes connections at once', { shutdownTimeout: '0' }, {}, { shutdownTimeoutMs: 0 }],
  ['--shutdown-timeout of an hour', { shutdownTimeout: 3600 }, {}, { shutdownTimeoutMs: 3600000 }],
  ['--verbose and --access-logs', { verbose: true, accessLogs: true }, {}, { verbose: true, accessLogs: true }],
  ['numeric flags from an argv parser are taken as text', { host: 0 as unknown as string, siteDir: 2026 as unknown as string, token: 123 as unknown as string }, {},
    { host: '0', siteDir: path.resolve('2026'), token: '123' }],
  ['PANOPTES_TELEMETRY_* when the MERIDIAN_ variables are unset', {}, PANOPTES, { host: '0.0.0.0', port: 6563, siteDir: '/var/panoptes/telemetry' }],
  ['MERIDIAN_ variables win over the PANOPTES ones', {}, { ...PANOPTES, ...ENV }, { host: '127.0.0.2', port: 7000, siteDir: '/srv/telemetry', token: 'from-env' }],
  ['each PANOPTES variable stands in for its own MERIDIAN one', {}, { ...PANOPTES, MERIDIAN_TELEMETRY_PORT: '7000' },
    { host: '0.0.0.0', port: 7000, siteDir: '/var/panoptes/telemetry' }],
  ['an empty MERIDIAN_ variable counts as unset: the PANOPTES one applies', {}, { ...PANOPTES, MERIDIAN_TELEMETRY_HOST: '' },
    { host: '0.0.0.0', port: 6563, siteDir: '/var/panoptes/telemetry' }],
  ['flags win over PANOPTES variables', { host: '::1', port: '7100', siteDir: '/x' }, PANOPTES, { host: '::1', port: 7100, siteDir: '/x' }],
  ['there is no PANOPTES token variable', {}, { PANOPTES_TELEMETRY_TOKEN: 't' }, {}],
  ['--allow-unauthenticated', { allowUnauthenticated: true }, {}, { allowUnauthenticated: true }],
  ...['1', 'true', 'YES', 'on'].map((value): [string, DaemonFlags, Record<string, string>, Partial<DaemonConfig>] =>
    [`MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED=${value}`, {}, { MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED: value }, { allowUnauthenticated: true }]),
  ...['0', 'false', 'no', 'off', ''].map((value): [string, DaemonFlags, Record<string, string>, Partial<DaemonConfig>] =>
    [`MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED=${JSON.stringify(value)}`, {}, { MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED: value }, {}]),
  ['the flag wins over a variable saying no', { allowUnauthenticated: true }, { MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED: '0' }, { allowUnauthenticated: true }],
  ['--max-age rules', { maxAge: 'weather=180,*=600' }, {}, { maxAge: [{ pattern: 'weather', seconds: 180 }, { pattern: '*', seconds: 600 }] }],
  ['MERIDIAN_TELEMETRY_MAX_AGE', {}, { MERIDIAN_TELEMETRY_MAX_AGE: 'power=90' }, { maxAge: [{ pattern: 'power', seconds: 90 }] }],
  ['--max-age over MERIDIAN_TELEMETRY_MAX_AGE', { maxAge: '300' }, { MERIDIAN_TELEMETRY_MAX_AGE: 'power=90' }, { maxAge: [{ pattern: '*', seconds: 300 }] }],
  ['an empty MERIDIAN_TELEMETRY_MAX_AGE counts as unset', {}, { MERIDIAN_TELEMETRY_MAX_AGE: '' }, {}],
  ['--allowed-hosts: names canonical (lower case, no trailing dot, IPv6 compressed), duplicates once',
    { allowedHosts: 'Obs1, obs1.example.org.,[0:0::2],192.0.2.7,obs1' }, {}, { allowedHosts: ['obs1', 'obs1.example.org', '::2', '192.0.2.7'] }],
  ['MERIDIAN_TELEMETRY_ALLOWED_HOSTS', {}, { MERIDIAN_TELEMETRY_ALLOWED_HOSTS: 'pocs.local' }, { allowedHosts: ['pocs.local'] }],
  ['--allowed-hosts over its variable', { allowedHosts: 'a' }, { MERIDIAN_TELEMETRY_ALLOWED_HOSTS: 'b' }, { allowedHosts: ['a'] }],
  ['a token with surrounding whitespace is the token without it', { token: ' s3cret\n' }, {}, { token: 's3cret' }],
  ['an empty token variable is one not set', {}, { MERIDIAN_TELEMETRY_TOKEN: '' }, {}],
  ['a host variable with surrounding blanks, like the port variable', {}, { MERIDIAN_TELEMETRY_HOST: ' 127.0.0.2\t', MERIDIAN_TELEMETRY_PORT: ' 7000 ' }, { host: '127.0.0.2', port: 7000 }],
  ['a --host with surrounding blanks', { host: ' ::1 ' }, {}, { host: '::1' }],
  ['--allowed-hosts of names, addresses and a trailing dot', { allowedHosts: ' obs1. ,192.0.2.7,[FD00::2],dome_pc,a-b.example.org' }, {},
    { allowedHosts: ['obs1', '192.0.2.7', 'fd00::2', 'dome_pc', 'a-b.example.org'] }],
  ['a token variable with a trailing newline', {}, { MERIDIAN_TELEMETRY_TOKEN: 'from-env\n' }, { token: 'from-env' }],
  ['TZ names the site day zone', {}, { TZ: 'Europe/Berlin' }, { zone: 'Europe/Berlin' }],
  ['TZ with the POSIX leading colon', {}, { TZ: ':America/New_York' }, { zone: 'America/New_York' }],
  ['an empty TZ means the system zone', {}, { TZ: '' }, {}],
  ['--unit-id as spelled', { unitId: 'Dome-2.north_A' }, {}, { unitId: 'Dome-2.north_A' }],
  ['MERIDIAN_TELEMETRY_UNIT_ID', {}, { MERIDIAN_TELEMETRY_UNIT_ID: ' pan012 ' }, { unitId: 'pan012' }],
  ['--unit-id over its variable', { unitId: 'a' }, { MERIDIAN_TELEMETRY_UNIT_ID: 'b' }, { unitId: 'a' }],
  ['a unit id of 64 characters', { unitId: 'u'.repeat(64) }, {}, { unitId: 'u'.repeat(64) }],
  ['an unknown TZ gives UTC and a warning', {}, { TZ: 'Mars/Olympus_Mons' },
    { zone: 'utc', zoneWarning: 'TZ="Mars/Olympus_Mons" is not a known time zone; site days follow UTC' }],
];

for (const [name, flags, env, expected] of RESOLVED) {
  test(`resolveDaemonConfig: ${name}`, () => {
    const config = resolveDaemonConfig(flags, env, HOME);
    assert.equal({ ...config }, { ...DEFAULTS, ...expected });
    assert.ok(Object.isFrozen(config));
  });
}

const ALLOWED_ERROR = '--allowed-hosts must be host names or addresses separated by commas (obs1,obs1.example.org,192.0.2.7)';
const REFUSED: [string, DaemonFlags, Record<string, string>, string][] = [
  // [name, flags, env, exact message]
  ['port 0', { port: '0' }, {}, '--port must be a whole number from 1 to 65535; got "0"'],
  ['port 65536', { port: '65536' }, {}, '--port must be a whole number from 1 to 65535; got "65536"'],
  ['port abc', { port: 'abc' }, {}, '--port must be a whole number from 1 to 65535; got "abc"'],
  ['port 12.5', { port: '12.5' }, {}, '--port must be a whole number from 1 to 65535; got "12.5"'],
  ['port -1', { port: '-1' }, {}, '--port must be a whole number from 1 to 65535; got "-1"'],
  ['port 1e3', { port: '1e3' }, {}, '--port must be a whole number from 1 to 65535; got "1e3"'],
  ['port number 12.5', { port: 12.5 }, {}, '--port must be a whole number from 1 to 65535; got 12.5'],
  ['port from the environment', {}, { MERIDIAN_TELEMETRY_PORT: 'abc' }, 'MERIDIAN_TELEMETRY_PORT must be a whole number from 1 to 65535; got "abc"'],
  ['port 0 from the environment', {}, { MERIDIAN_TELEMETRY_PORT: '0' }, 'MERIDIAN_TELEMETRY_PORT must be a whole number from 1 to 65535; got "0"'],
  ['an unknown fsync mode', { fsync: 'sometimes' }, {}, '--fsync must be one of always, batch, off; got "sometimes"'],
  ['an empty fsync mode', { fsync: '' }, {}, '--fsync must be one of always, batch, off; got ""'],
  ['a rollups value that is no choice', { rollups: 'yes' }, {}, '--rollups must be one of on, off; got "yes"'],
  ['a body limit of 0', { maxBody: '0' }, {}, '--max-body must be a whole number of bytes from 1 to 268435456 (256 MiB); got "0"'],
  ['a body limit of 1MB', { maxBody: '1MB' }, {}, '--max-body must be a whole number of bytes from 1 to 268435456 (256 MiB); got "1MB"'],
  ['a body limit past 256 MiB', { maxBody: '268435457' }, {}, '--max-body must be a whole number of bytes from 1 to 268435456 (256 MiB); got "268435457"'],
  ['a negative shutdown timeout', { shutdownTimeout: '-1' }, {}, '--shutdown-timeout must be a number of seconds from 0 to 3600; got "-1"'],
  ['a shutdown timeout with a unit', { shutdownTimeout: '5s' }, {}, '--shutdown-timeout must be a number of seconds from 0 to 3600; got "5s"'],
  ['a shutdown timeout over an hour', { shutdownTimeout: '3601' }, {}, '--shutdown-timeout must be a number of seconds from 0 to 3600; got "3601"'],
  ['an infinite shutdown timeout', { shutdownTimeout: Infinity }, {}, '--shutdown-timeout must be a number of seconds from 0 to 3600; got Infinity'],
  ['a blank --host', { host: ' ' }, {}, '--host must be a host name or address; got " "'],
  ['a blank host in the environment', {}, { MERIDIAN_TELEMETRY_HOST: ' ' }, 'MERIDIAN_TELEMETRY_HOST must be a host name or address; got " "'],
  ['an empty --site-dir', { siteDir: '' }, {}, '--site-dir must be a directory path; got ""'],
  ['a bad PANOPTES port names its variable', {}, { PANOPTES_TELEMETRY_PORT: 'abc' }, 'PANOPTES_TELEMETRY_PORT must be a whole number from 1 to 65535; got "abc"'],
  ['a blank PANOPTES host names its variable', {}, { PANOPTES_TELEMETRY_HOST: ' ' }, 'PANOPTES_TELEMETRY_HOST must be a host name or address; got " "'],
  ['an unclear allow-unauthenticated variable', {}, { MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED: 'maybe' },
    'MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED must be one of 1, true, yes, on, 0, false, no, off; got "maybe"'],
  ['an empty --allowed-hosts', { allowedHosts: '' }, {}, '--allowed-hosts must be host names or addresses separated by commas (obs1,obs1.example.org,192.0.2.7); got ""'],
  ['an empty item of --allowed-hosts', { allowedHosts: 'a,,b' }, {}, '--allowed-hosts must be host names or addresses separated by commas (obs1,obs1.example.org,192.0.2.7); "" is not one; got "a,,b"'],
  ['a wildcard in --allowed-hosts', { allowedHosts: '*.example.org' }, {}, '--allowed-hosts must be host names or addresses separated by commas (obs1,obs1.example.org,192.0.2.7); "*.example.org" is not one; got "*.example.org"'],
  ['a port in --allowed-hosts', { allowedHosts: 'obs1:6562' }, {}, '--allowed-hosts must be host names or addresses separated by commas (obs1,obs1.example.org,192.0.2.7); "obs1:6562" is not one; got "obs1:6562"'],
  ['a user in MERIDIAN_TELEMETRY_ALLOWED_HOSTS', {}, { MERIDIAN_TELEMETRY_ALLOWED_HOSTS: 'me@obs1' },
    'MERIDIAN_TELEMETRY_ALLOWED_HOSTS must be host names or addresses separated by commas (obs1,obs1.example.org,192.0.2.7); "me@obs1" is not one; got "me@obs1"'],
  ['a name with an empty label in --allowed-hosts', { allowedHosts: 'obs1,.example.org' }, {}, `${ALLOWED_ERROR}; ".example.org" is not one; got "obs1,.example.org"`],
  ['an IPv4-like entry out of range in --allowed-hosts', { allowedHosts: '999.1.1.1' }, {}, `${ALLOWED_ERROR}; "999.1.1.1" is not one; got "999.1.1.1"`],
  ['three numbers in --allowed-hosts', { allowedHosts: ' 10.1.2 ' }, {}, `${ALLOWED_ERROR}; "10.1.2" is not one; got " 10.1.2 "`],
  ['a label ending in - in --allowed-hosts', { allowedHosts: 'obs-.example.org' }, {}, `${ALLOWED_ERROR}; "obs-.example.org" is not one; got "obs-.example.org"`],
  ['a token with a space inside', { token: 'two words' }, {}, '--token must be a token of visible ASCII characters without spaces; got "(not shown)"'],
  ['a token variable with a control character', {}, { MERIDIAN_TELEMETRY_TOKEN: 'a\u0007b' },
    'MERIDIAN_TELEMETRY_TOKEN must be a token of visible ASCII characters without spaces; got "(not shown)"'],
  ['an empty --max-age', { maxAge: '' }, {},
    '--max-age must be PATTERN=SECONDS items separated by commas (weather=180,power=90,*=600), or seconds for every type; got ""'],
  ['a bad MERIDIAN_TELEMETRY_MAX_AGE', {}, { MERIDIAN_TELEMETRY_MAX_AGE: 'power=soon' },
    'MERIDIAN_TELEMETRY_MAX_AGE must be PATTERN=SECONDS items separated by commas (weather=180,power=90,*=600), or seconds for every type; the seconds of "power" must be a positive number or none; got "power=soon"'],
  ['a unit id with a space', { unitId: 'unit 1' }, {}, '--unit-id must be 1-64 letters, digits, ".", "_" or "-" (not "." or ".."); got "unit 1"'],
  ['a unit id with a slash (an MQTT topic level)', {}, { MERIDIAN_TELEMETRY_UNIT_ID: 'a/b' },
    'MERIDIAN_TELEMETRY_UNIT_ID must be 1-64 letters, digits, ".", "_" or "-" (not "." or ".."); got "a/b"'],
  ['a unit id of 65 characters', { unitId: 'u'.repeat(65) }, {}, `--unit-id must be 1-64 letters, digits, ".", "_" or "-" (not "." or ".."); got "${'u'.repeat(65)}"`],
  ['a unit id ".."', { unitId: '..' }, {}, '--unit-id must be 1-64 letters, digits, ".", "_" or "-" (not "." or ".."); got ".."'],
  ['an empty --unit-id', { unitId: '' }, {}, '--unit-id must be 1-64 letters, digits, ".", "_" or "-" (not "." or ".."); got ""'],
];

for (const [name, flags, env, message] of REFUSED) {
  test(`resolveDaemonConfig refuses ${name}`, () => {
    assert.throws(() => resolveDaemonConfig(flags, env, HOME),
      (error: unknown) => error instanceof ConfigError && error.message === message);
  });
}

test('resolveClientAddress: flag > environment > default', () => {
  assert.equal({ ...resolveClientAddress({}, {}) }, { host: 'localhost', port: 6562, token: undefined });
  assert.equal({ ...resolveClientAddress({}, ENV) }, { host: '127.0.0.2', port: 7000, token: 'from-env' });
  assert.equal({ ...resolveClientAddress({ host: 'obs1', port: '7001', token: 't' }, ENV) }, { host: 'obs1', port: 7001, token: 't' });
  assert.throws(() => resolveClientAddress({}, { MERIDIAN_TELEMETRY_PORT: '65536' }),
    (error: unknown) => error instanceof ConfigError && error.message === 'MERIDIAN_TELEMETRY_PORT must be a whole number from 1 to 65535; got "65536"');
  assert.equal({ ...resolveClientAddress({}, PANOPTES) }, { host: '0.0.0.0', port: 6563, token: undefined }, 'PANOPTES variables');
  assert.equal({ ...resolveClientAddress({}, { ...PANOPTES, ...ENV }) }, { host: '127.0.0.2', port: 7000, token: 'from-env' }, 'MERIDIAN first');
  assert.equal({ ...resolveClientAddress({}, { MERIDIAN_TELEMETRY_TOKEN: ' \n' }) }, { host: 'localhost', port: 6562, token: undefined }, 'a blank token variable is none');
  assert.equal({ ...resolveClientAddress({ token: '  ' }, {}) }, { host: 'localhost', port: 6562, token: undefined }, 'a blank --token is none');
  assert.equal({ ...resolveClientAddress({}, { MERIDIAN_TELEMETRY_HOST: ' obs1 ', MERIDIAN_TELEMETRY_PORT: ' 7001' }) }, { host: 'obs1', port: 7001, token: undefined },
    'host and port variables trimmed alike');
  assert.equal({ ...resolveClientAddress({ token: ' t\n' }, ENV) }, { host: '127.0.0.2', port: 7000, token: 't' }, 'a token trimmed');
});

const HOST_NAMES: [string, string, string][] = [
  // [name, host name, the default unit id]
  ['a short host name', 'pan012', 'pan012'],
  ['in lower case (host names are case-insensitive)', 'PAN012.Example.ORG.', 'pan012.example.org'],
  ['a name longer than 64: its first label', `dome.${'x'.repeat(70)}.org`, 'dome'],
  ['a first label longer than 64: cut to 64', 'y'.repeat(70), 'y'.repeat(64)],
  ['other characters as -', 'My Unit/2', 'my-unit-2'],
  ['an empty host name', '', 'localhost'],
  ['a host name ".."', '..', 'localhost'],
];

for (const [name, hostName, expected] of HOST_NAMES) {
  test(`resolveDaemonConfig: the default unit id from the host name: ${name}`, () => {
    assert.is(resolveDaemonConfig({}, {}, HOME, [], hostName).unitId, expected);
    assert.is(resolveDaemonConfig({ unitId: 'u1' }, {}, HOME, [], hostName).unitId, 'u1', 'a unit id given wins');
  });
}

test('resolveDaemonConfig: a token of whitespace only is no token, from the flag and the variable alike (issue 22)', () => {
  assert.is(resolveDaemonConfig({ token: '  ' }, {}, HOME).token, undefined);
  assert.is(resolveDaemonConfig({}, { MERIDIAN_TELEMETRY_TOKEN: ' \t\n' }, HOME).token, undefined);
  assert.is(resolveDaemonConfig({ token: ' t0k ' }, {}, HOME).token, 't0k');
});

test('resolveDaemonConfig: the machine\'s names join the allowed hosts, canonical, after the operator\'s; a zoned address is left out', () => {
  const config = resolveDaemonConfig({ allowedHosts: 'pocs' }, {}, HOME, ['VM', 'vm.local.', '127.0.1.1', '::ffff:192.0.2.2', 'fe80::1%eth0', 'pocs']);
  assert.equal(config.allowedHosts, ['pocs', 'vm', 'vm.local', '127.0.1.1', '192.0.2.2']);
  assert.ok(Object.isFrozen(config.allowedHosts));
});

test('resolveClientAddress refuses a host that is not a plain name or address, naming the option (library or CLI) or the variable', () => {
  const CLI = { host: '--host', port: '--port' };
  const rows: Array<[string, { host?: string; port?: string }, Record<string, string>, typeof CLI | undefined, string]> = [
    ['a host with a port', { host: 'localhost:7000' }, {}, undefined, 'host must be a host name or address; got "localhost:7000"'],
    ['a host with a path, from the command line', { host: 'localhost/x' }, {}, CLI, '--host must be a host name or address; got "localhost/x"'],
    ['a host with a user', { host: 'ops@dome' }, {}, CLI, '--host must be a host name or address; got "ops@dome"'],
    ['a blank host, from the command line', { host: ' ' }, {}, CLI, '--host must be a host name or address; got " "'],
    ['a host variable with a space', {}, { MERIDIAN_TELEMETRY_HOST: 'dome pc' }, CLI, 'MERIDIAN_TELEMETRY_HOST must be a host name or address; got "dome pc"'],
    ['a bad port, from the command line', { port: '0' }, {}, CLI, '--port must be a whole number from 1 to 65535; got "0"'],
  ];
  for (const [name, flags, env, names, message] of rows) {
    assert.throws(() => resolveClientAddress(flags, env, names), (error: unknown) => error instanceof ConfigError && error.message === message, name);
  }
  assert.is(addressUrl(resolveClientAddress({ host: '::1', port: 80 }, {})), 'http://[::1]:80');
  assert.is(addressUrl(resolveClientAddress({}, ENV)), 'http://127.0.0.2:7000');
});

test('the daemon logs the unknown-TZ warning at start-up', () => withTestDaemon({ env: { TZ: 'Mars/Olympus_Mons' } }, async (d) => {
  const warnings = d.logs.filter((l) => / WARN /.test(l)).map((l) => l.replace(/^\S+ /, ''));
  assert.equal(warnings, ['WARN TZ="Mars/Olympus_Mons" is not a known time zone; site days follow UTC']);
}));

test.run();
