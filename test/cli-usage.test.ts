import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../lib/version.js';
import { cli, type CliRun } from './helpers/cli.js';
import { freePort } from './helpers/daemon.js';

// The built executables: usage mistakes (exit 2, one line on stderr, nothing on stdout, no
// stack), help and version (exit 0), and no daemon at the address (exit 3; stop exit 0).

type Bin = 'telemetry' | 'meridian';

/** Run table rows a few at a time (each is a node process start). */
async function runAll<T>(rows: readonly T[], run: (row: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < rows.length; i += 4) await Promise.all(rows.slice(i, i + 4).map(run));
}

function expectRun(got: CliRun, code: number, stdout: string, stderr: string, name: string): void {
  assert.is(got.stderr, stderr, `${name}: stderr`);
  assert.is(got.stdout, stdout, `${name}: stdout`);
  assert.is(got.code, code, `${name}: exit code`);
}

const USAGE: Array<[string, Bin, string[], Record<string, string>, string]> = [
  ['no command', 'telemetry', [], {}, 'telemetry: missing command (see "telemetry --help")'],
  ['no command (meridian)', 'meridian', [], {}, 'meridian: missing command (see "meridian --help")'],
  ['only the group word', 'meridian', ['telemetry'], {}, 'meridian: missing command (see "meridian --help")'],
  ['unknown command', 'telemetry', ['foo'], {}, 'telemetry: unknown command "foo" (see "telemetry --help")'],
  ['unknown command under the group', 'meridian', ['telemetry', 'foo'], {}, 'meridian: unknown command "foo" (see "meridian --help")'],
  ['a command without the group word', 'meridian', ['run'], {},
    'meridian: unknown command "run"; did you mean "meridian telemetry run"? (see "meridian --help")'],
  ['unknown option', 'telemetry', ['status', '--bogus'], {}, 'telemetry: unknown option --bogus (see "telemetry status --help")'],
  ['unknown short option (meridian)', 'meridian', ['telemetry', 'status', '-x'], {},
    'meridian: unknown option -x (see "meridian telemetry status --help")'],
  ['an option of another command', 'telemetry', ['stop', '--json'], {}, 'telemetry: unknown option --json (see "telemetry stop --help")'],
  ['extra argument', 'telemetry', ['status', 'extra'], {}, 'telemetry: unexpected argument "extra" (see "telemetry status --help")'],
  ['second TYPE', 'telemetry', ['current', 'a', 'b'], {}, 'telemetry: unexpected argument "b" (see "telemetry current --help")'],
  ['empty TYPE', 'telemetry', ['current', ''], {}, 'telemetry: TYPE must not be empty (see "telemetry current --help")'],
  ['port not a number', 'telemetry', ['status', '--port', 'abc'], {},
    'telemetry: --port must be a whole number from 1 to 65535; got "abc" (see "telemetry status --help")'],
  ['port out of range', 'telemetry', ['current', '--port', '70000'], {},
    'telemetry: --port must be a whole number from 1 to 65535; got "70000" (see "telemetry current --help")'],
  ['port without a value', 'telemetry', ['status', '--port'], {}, 'telemetry: --port needs a value (see "telemetry status --help")'],
  ['empty host', 'telemetry', ['status', '--host', ''], {}, 'telemetry: --host needs a value (see "telemetry status --help")'],
  ['empty token', 'telemetry', ['stop', '--token='], {}, 'telemetry: --token needs a value (see "telemetry stop --help")'],
  ['port twice', 'telemetry', ['status', '--port', '1', '--port', '2'], {}, 'telemetry: --port is given more than once (see "telemetry status --help")'],
  ['port from the environment', 'telemetry', ['status'], { MERIDIAN_TELEMETRY_PORT: 'x' },
    'telemetry: MERIDIAN_TELEMETRY_PORT must be a whole number from 1 to 65535; got "x" (see "telemetry status --help")'],
  ['stop timeout zero', 'telemetry', ['stop', '--timeout', '0'], {},
    'telemetry: --timeout must be a number of seconds from 0.001 to 2147483 (such as 60 or 0.5); got "0" (see "telemetry stop --help")'],
  ['follow interval not a number', 'telemetry', ['current', '--follow', '--interval', 'abc'], {},
    'telemetry: --interval must be a number of seconds from 0.1 to 3600 (such as 60 or 0.5); got "abc" (see "telemetry current --help")'],
  ['stale not a number', 'telemetry', ['current', '--stale', '1m'], {},
    'telemetry: --stale must be a number of seconds of at least 0.001 (such as 60 or 0.5); got "1m" (see "telemetry current --help")'],
  ['interval without follow', 'telemetry', ['current', '--interval', '2'], {},
    'telemetry: --interval only applies with --follow (see "telemetry current --help")'],
  ['log format', 'telemetry', ['run', '--log-format', 'xml'], {}, 'telemetry: --log-format must be one of text, json; got "xml" (see "telemetry run --help")'],
  ['retention age', 'telemetry', ['run', '--retain', '1y'], {}, 'telemetry: --retain must be an age in days or hours, such as 2d or 36h; got "1y" (see "telemetry run --help")'],
  ['compression age', 'telemetry', ['run', '--compress-after', '0d'], {}, 'telemetry: --compress-after must be an age in days or hours, such as 2d or 36h; got "0d" (see "telemetry run --help")'],
  ['run timeout without detach', 'telemetry', ['run', '--timeout', '3'], {}, 'telemetry: --timeout only applies with --detach (see "telemetry run --help")'],
  ['bad fsync, foreground', 'telemetry', ['run', '--fsync', 'sometimes'], {},
    'telemetry: --fsync must be one of always, batch, off; got "sometimes" (see "telemetry run --help")'],
  ['bad fsync, detached', 'meridian', ['telemetry', 'run', '--detach', '--fsync', 'sometimes'], {},
    'meridian: --fsync must be one of always, batch, off; got "sometimes" (see "meridian telemetry run --help")'],
  ['bad port, detached', 'telemetry', ['run', '--detach', '--port', '0'], {},
    'telemetry: --port must be a whole number from 1 to 65535; got "0" (see "telemetry run --help")'],
  ['bad max body', 'telemetry', ['run', '--max-body', '0'], {},
    'telemetry: --max-body must be a whole number of bytes from 1 to 268435456 (256 MiB); got "0" (see "telemetry run --help")'],
  ['detach timeout not a number', 'telemetry', ['run', '--detach', '--timeout', 'soon'], {},
    'telemetry: --timeout must be a number of seconds from 0.001 to 2147483 (such as 60 or 0.5); got "soon" (see "telemetry run --help")'],
];

test('usage mistakes: exit 2, one line on stderr naming the problem and the --help to read, nothing on stdout', async () => {
  await runAll(USAGE, async ([name, bin, args, env, stderr]) => {
    expectRun(await cli(args, { bin, env }), 2, '', `${stderr}\n`, name);
  });
});

test('--help on every command and --version, from both executables: exit 0 on stdout', async () => {
  const rows: Array<[Bin, string[], RegExp]> = [
    ['telemetry', ['--help'], /^\n {2}Usage\n {4}\$ telemetry <command> \[options\]\n/],
    ['meridian', ['--help'], /^\n {2}Usage\n {4}\$ meridian <command> \[options\]\n[\s\S]* {4}telemetry current +Print the current reading/],
    ['meridian', ['telemetry', '--help'], /^\n {2}Usage\n {4}\$ meridian <command> \[options\]\n/],
    ...(['run', 'stop', 'current', 'status'] as const).flatMap((c): Array<[Bin, string[], RegExp]> => [
      ['telemetry', [c, '--help'], new RegExp(`\\n {2}Usage\\n {4}\\$ telemetry ${c} [\\s\\S]*\\n {2}Examples\\n {4}\\$ telemetry ${c}`)],
      ['meridian', ['telemetry', c, '-h'], new RegExp(`\\n {2}Usage\\n {4}\\$ meridian telemetry ${c} [\\s\\S]*\\n {2}Examples\\n {4}\\$ meridian telemetry ${c}`)],
    ]),
  ];
  await runAll(rows, async ([bin, args, pattern]) => {
    const got = await cli(args, { bin });
    assert.is(got.code, 0, args.join(' '));
    assert.is(got.stderr, '', args.join(' '));
    assert.match(got.stdout, pattern, args.join(' '));
  });
  const versions: Array<[Bin, string[]]> = [['telemetry', ['--version']], ['meridian', ['-v']], ['meridian', ['telemetry', '--version']]];
  await runAll(versions, async ([bin, args]) => {
    expectRun(await cli(args, { bin }), 0, `${bin}, ${VERSION}\n`, '', args.join(' '));
  });
});

test('no daemon at the address: exit 3 with "no telemetry daemon at ..."; stop says none was running, exit 0', async () => {
  const port = await freePort();
  const at = ['--host', '127.0.0.1', '--port', String(port)];
  const refused = (bin: Bin) => `${bin}: no telemetry daemon at 127.0.0.1:${port} (connection refused)\n`;
  const rows: Array<[string, Bin, string[], Record<string, string>, number, string, string]> = [
    ['status', 'telemetry', ['status', ...at], {}, 3, '', refused('telemetry')],
    ['status --json', 'telemetry', ['status', '--json', ...at], {}, 3, '', refused('telemetry')],
    ['current', 'telemetry', ['current', ...at], {}, 3, '', refused('telemetry')],
    ['current TYPE', 'telemetry', ['current', 'weather', ...at], {}, 3, '', refused('telemetry')],
    ['current --json (meridian)', 'meridian', ['telemetry', 'current', '--json', ...at], {}, 3, '', refused('meridian')],
    ['address from the environment', 'telemetry', ['status'], { MERIDIAN_TELEMETRY_HOST: '127.0.0.1', MERIDIAN_TELEMETRY_PORT: String(port) },
      3, '', refused('telemetry')],
    ['flags win over the environment', 'telemetry', ['current', ...at], { MERIDIAN_TELEMETRY_PORT: '1' }, 3, '', refused('telemetry')],
    ['stop', 'telemetry', ['stop', ...at], {}, 0, `no telemetry daemon at 127.0.0.1:${port}\n`, ''],
    ['stop (meridian)', 'meridian', ['telemetry', 'stop', ...at], {}, 0, `no telemetry daemon at 127.0.0.1:${port}\n`, ''],
  ];
  await runAll(rows, async ([name, bin, args, env, code, stdout, stderr]) => {
    expectRun(await cli(args, { bin, env }), code, stdout, stderr, name);
  });
});

test.run();
