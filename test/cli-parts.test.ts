import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClientError, TelemetryConnectionError } from '../client/errors.js';
import { chooseCommand, type CommandChoice } from '../cli/command-words.js';
import { answerJudge } from '../cli/current-judge.js';
import { currentTable, envelopePanel } from '../cli/current-text.js';
import { connect } from '../cli/connect.js';
import { CommandFailure, describeFailure } from '../cli/failure.js';
import { newEnvelopes } from '../cli/follow.js';
import type { CliIo } from '../cli/io.js';
import { secondsOption, switchOption, textOption, UsageError } from '../cli/options.js';
import { rollupLine, statusLine } from '../cli/status.js';
import { formatUptime } from '../table/format.js';
import { PALETTES } from '../table/palette.js';
import { TelemetryStartError } from '../launcher/launch-failure.js';
import { ConfigError } from '../lib/errors.js';
import type { Envelope, StatusAnswer } from '../lib/wire.js';

// The pure parts of the command line, table by table.

const COMMANDS = ['run', 'stop', 'current', 'status'];

test('chooseCommand: the command among options and their values, for both executables', () => {
  const rows: Array<[string, string[], string, CommandChoice]> = [
    ['plain', ['status'], '', { kind: 'command', name: 'status', argv: ['status'] }],
    ['with the group word', ['telemetry', 'current', 'x'], 'telemetry ', { kind: 'command', name: 'telemetry current', argv: ['telemetry', 'current', 'x'] }],
    ['after options', ['--port', '7000', 'status'], '', { kind: 'command', name: 'status', argv: ['status', '--port', '7000'] }],
    ['a switch does not take the next word', ['--json', 'current', 'weather'], '', { kind: 'command', name: 'current', argv: ['current', '--json', 'weather'] }],
    ['a value equal to a command name', ['--host', 'status', 'current'], '', { kind: 'command', name: 'current', argv: ['current', '--host', 'status'] }],
    ['--opt=value', ['--port=7000', 'stop'], '', { kind: 'command', name: 'stop', argv: ['stop', '--port=7000'] }],
    ['unknown', ['foo'], '', { kind: 'unknown', word: 'foo' }],
    ['unknown group', ['run'], 'telemetry ', { kind: 'unknown', word: 'run' }],
    ['unknown under the group', ['telemetry', 'foo'], 'telemetry ', { kind: 'unknown', word: 'foo' }],
    ['nothing', [], '', { kind: 'none', help: false, version: false }],
    ['help', ['--help'], '', { kind: 'none', help: true, version: false }],
    ['group word and -h', ['telemetry', '-h'], 'telemetry ', { kind: 'none', help: true, version: false }],
    ['version', ['-v'], 'telemetry ', { kind: 'none', help: false, version: true }],
    ['words after -- are not commands', ['--', 'status'], '', { kind: 'none', help: false, version: false }],
  ];
  for (const [name, argv, prefix, expected] of rows) assert.equal(chooseCommand(argv, COMMANDS, prefix), expected, name);
});

test('option readers: text, switches and seconds, with the usage errors they give', () => {
  const rows: Array<[string, () => unknown, unknown]> = [
    ['text', () => textOption({ host: 'h' }, 'host'), 'h'],
    ['text absent', () => textOption({}, 'host'), undefined],
    ['text given a number', () => textOption({ token: 123 }, 'token'), '123'],
    ['switch', () => switchOption({ json: true }, 'json'), true],
    ['switch absent', () => switchOption({}, 'json'), false],
    ['switch --no-json', () => switchOption({ json: false }, 'json'), false],
    ['switch repeated', () => switchOption({ json: [true, false] }, 'json'), false],
    ['seconds default', () => secondsOption({}, 'interval', 1000), 1000],
    ['whole seconds', () => secondsOption({ interval: '2' }, 'interval', 1000), 2000],
    ['fraction', () => secondsOption({ interval: '0.25' }, 'interval', 1000), 250],
    ['leading dot', () => secondsOption({ interval: '.5' }, 'interval', 1000), 500],
    ['a millisecond', () => secondsOption({ timeout: '0.001' }, 'timeout', 1000), 1],
  ];
  for (const [name, read, expected] of rows) assert.equal(read(), expected, name);
  const errors: Array<[string, () => unknown, string]> = [
    ['text twice', () => textOption({ port: ['1', '2'] }, 'port'), '--port is given more than once'],
    ['text empty', () => textOption({ port: '' }, 'port'), '--port needs a value'],
    ['zero seconds', () => secondsOption({ interval: '0' }, 'interval', 1), '--interval must be a number of seconds from 0.001 to 2147483 (such as 60 or 0.5); got "0"'],
    ['below a millisecond', () => secondsOption({ interval: '0.0001' }, 'interval', 1), '--interval must be a number of seconds from 0.001 to 2147483 (such as 60 or 0.5); got "0.0001"'],
    ['negative', () => secondsOption({ stale: '-1' }, 'stale', 1), '--stale must be a number of seconds from 0.001 to 2147483 (such as 60 or 0.5); got "-1"'],
    ['a unit', () => secondsOption({ stale: '5s' }, 'stale', 1), '--stale must be a number of seconds from 0.001 to 2147483 (such as 60 or 0.5); got "5s"'],
    ['infinite', () => secondsOption({ stale: '1e999' }, 'stale', 1), '--stale must be a number of seconds from 0.001 to 2147483 (such as 60 or 0.5); got "1e999"'],
  ];
  for (const [name, read, message] of errors) assert.throws(read, (e: Error) => e.message === message, name);
});

test('connect: flags, then the environment, then the defaults, resolved once; the client gets the address', () => {
  const io = (env: Record<string, string>) => ({ env }) as unknown as CliIo;
  const rows: Array<[string, Record<string, unknown>, Record<string, string>, string, string]> = [
    ['defaults', {}, {}, 'http://localhost:6562', 'localhost:6562'],
    ['environment', {}, { MERIDIAN_TELEMETRY_HOST: '127.0.0.2', MERIDIAN_TELEMETRY_PORT: '7000' }, 'http://127.0.0.2:7000', '127.0.0.2:7000'],
    ['flags over a bad environment', { host: '::1', port: '7001' }, { MERIDIAN_TELEMETRY_HOST: 'dome pc', MERIDIAN_TELEMETRY_PORT: 'abc' },
      'http://[::1]:7001', '[::1]:7001'],
  ];
  for (const [name, opts, env, baseUrl, address] of rows) {
    const target = connect(opts, io(env));
    assert.equal([target.client.baseUrl, target.address], [baseUrl, address], name);
    target.client.close();
  }
  assert.throws(() => connect({ host: 'localhost:7000' }, io({})),
    (error: unknown) => error instanceof ConfigError && error.message === '--host must be a host name or address; got "localhost:7000"');
  assert.throws(() => connect({ token: 'a b' }, io({})),
    (error: unknown) => error instanceof ConfigError && error.message === '--token must be a token of visible ASCII characters without spaces; got "(not shown)"');
});

test('describeFailure: each kind of error to its exit code and one stderr line', () => {
  const ctx = { name: 'telemetry', prefix: '', command: 'current' };
  const url = 'http://localhost:6562/current/x';
  const conn = (reason: string, timedOut = false) => new TelemetryConnectionError('m', { reason, timedOut, method: 'GET', url });
  const answered = (statusCode: number, detail: string, code?: string) => new TelemetryClientError('m', { statusCode, detail, code, method: 'GET', url });
  const rows: Array<[string, unknown, number, string]> = [
    ['usage', new UsageError('unknown option --x'), 2, 'telemetry: unknown option --x (see "telemetry current --help")'],
    ['bad value', new ConfigError('--port', 'a port', 'x'), 2, 'telemetry: --port must be a port; got "x" (see "telemetry current --help")'],
    ['refused', conn('ECONNREFUSED'), 3, 'telemetry: no telemetry daemon at localhost:6562 (connection refused)'],
    ['unknown host', conn('ENOTFOUND'), 3, 'telemetry: no telemetry daemon at localhost:6562 (host name not resolved)'],
    ['reset', conn('ECONNRESET'), 3, 'telemetry: no telemetry daemon at localhost:6562 (connection reset)'],
    ['other reason', conn('EPROTO'), 3, 'telemetry: no telemetry daemon at localhost:6562 (EPROTO)'],
    ['timed out', conn('ETIMEDOUT', true), 3, 'telemetry: no answer from the telemetry daemon at localhost:6562 within the timeout'],
    ['an error answer', answered(404, 'There is no current reading of type "x".', 'NO_READING'), 1, 'telemetry: there is no current reading of type "x" (NO_READING)'],
    ['a detail starting with a path', answered(403, '/shutdown is accepted from loopback clients or with the token.', 'FORBIDDEN'), 1,
      'telemetry: /shutdown is accepted from loopback clients or with the token (FORBIDDEN)'],
    ['an answer without code: another kind of server', answered(502, 'Bad Gateway'), 3,
      'telemetry: no telemetry daemon at localhost:6562 (another kind of server answers there: 502 Bad Gateway)'],
    ['start failure', new TelemetryStartError('the port is taken', { logFile: 'l' }), 1, 'telemetry: the daemon did not start: the port is taken'],
    ['command failure', new CommandFailure('did not exit within 1s'), 1, 'telemetry: did not exit within 1s'],
  ];
  for (const [name, error, code, line] of rows) assert.equal(describeFailure(error, ctx), { code, message: `${line}\n` }, name);
  assert.equal(describeFailure(new UsageError('missing command'), { name: 'meridian', prefix: 'telemetry ', command: undefined }),
    { code: 2, message: 'meridian: missing command (see "meridian --help")\n' });
  const bug = describeFailure(new TypeError('x is undefined'), ctx);
  assert.is(bug.code, 1);
  assert.match(bug.message, /^telemetry: internal error: TypeError: x is undefined\n {4}at /, 'a bug keeps its stack');
});

test('statusLine and formatUptime', () => {
  const base = { version: '0.1.0', pid: 1234, started_at: '2026-03-17T20:00:00.000Z', address: 'localhost:6562', run_id: '042' as string | null, types: 7, stale: 0, max_age: {},
    recorded: { permanent: 7, ephemeral: 0 }, authenticated: false, forward: [] as StatusAnswer['forward'] };
  const at = Date.parse(base.started_at);
  const rows: Array<[string, typeof base, number, string]> = [
    ['in a run', base, at + 192_000, 'telemetry daemon at localhost:6562  pid 1234  version 0.1.0  up 3m12s  run 042  7 types'],
    ['site, one type', { ...base, run_id: null, types: 1 }, at, 'telemetry daemon at localhost:6562  pid 1234  version 0.1.0  up 0s  site  1 type'],
    ['no start time', { ...base, started_at: '?', types: 0 }, at, 'telemetry daemon at localhost:6562  pid 1234  version 0.1.0  run 042  0 types'],
    ['two stale', { ...base, stale: 2 }, at, 'telemetry daemon at localhost:6562  pid 1234  version 0.1.0  up 0s  run 042  7 types  2 stale'],
    ['a full disk', { ...base, disk_full: { since: '2026-03-17T20:01:00.000Z', file: '/d/site_20260317.ndjson', code: 'ENOSPC' } } as typeof base, at,
      'telemetry daemon at localhost:6562  pid 1234  version 0.1.0  up 0s  run 042  7 types  DISK FULL since 2026-03-17T20:01:00.000Z (ENOSPC): not recording'],
    ['disk_full null', { ...base, disk_full: null } as typeof base, at, 'telemetry daemon at localhost:6562  pid 1234  version 0.1.0  up 0s  run 042  7 types'],
  ];
  for (const [name, status, now, line] of rows) assert.is(statusLine(status, 'localhost:6562', now), line, name);
  const last = { at: '2026-03-17T20:05:00.000Z', reason: 'asked for (POST /rollups/rebuild)' };
  const rollups: Array<[string, StatusAnswer['rollups'], string]> = [
    ['rollups off', undefined, ''],
    ['ok', { state: 'ok', since: null, reason: null, last_rebuild: null }, 'rollups ok\n'],
    ['ok after a rebuild', { state: 'ok', since: null, reason: null, last_rebuild: last },
      'rollups ok  last rebuild 2026-03-17T20:05:00.000Z (asked for (POST /rollups/rebuild))\n'],
    ['failed', { state: 'failed', since: '2026-03-17T20:06:00.000Z', reason: 'rebuilding the rollups failed (ENOSPC)', last_rebuild: last },
      'rollups failed since 2026-03-17T20:06:00.000Z: rebuilding the rollups failed (ENOSPC)  last rebuild 2026-03-17T20:05:00.000Z (asked for (POST /rollups/rebuild))\n'],
    ['unwritten', { state: 'unwritten', since: '2026-03-17T20:06:00.000Z', reason: 'ENOSPC', last_rebuild: null }, 'rollups unwritten since 2026-03-17T20:06:00.000Z: ENOSPC\n'],
  ];
  for (const [name, r, line] of rollups) assert.is(rollupLine({ ...base, rollups: r } as StatusAnswer), line, name);
  const uptimes: Array<[number, string]> = [[-5, '0s'], [59_999, '59s'], [60_000, '1m00s'], [3_599_000, '59m59s'], [3_600_000, '1h00m'],
    [86_399_000, '23h59m'], [86_400_000, '1d00h'], [3 * 86_400_000 + 5 * 3_600_000, '3d05h']];
  for (const [ms, text] of uptimes) assert.is(formatUptime(ms), text, String(ms));
});

const env = (type: string, seq: number, ts: string, data: Envelope['data'] = 1, meta: Envelope['meta'] = {}): Envelope => ({ seq, ts, type, data, meta });

test('newEnvelopes: new or changed readings once, oldest first; a type filter', () => {
  const printed = new Map<string, string>();
  const w1 = env('weather', 1, '2026-03-17T20:00:00.000Z');
  const d2 = env('dome', 2, '2026-03-17T20:00:00.000Z');
  const c3 = env('camera', 3, '2026-03-17T19:59:59.000Z');
  const w4 = env('weather', 4, '2026-03-17T20:00:01.000Z');
  const steps: Array<[string, Record<string, Envelope>, string | undefined, Envelope[]]> = [
    ['first view: all, by ts then seq', { weather: w1, dome: d2, camera: c3 }, undefined, [c3, w1, d2]],
    ['same view again: nothing', { weather: w1, dome: d2, camera: c3 }, undefined, []],
    ['one changed', { weather: w4, dome: d2, camera: c3 }, undefined, [w4]],
    ['a type gone and back unchanged: nothing', { weather: w4, camera: c3 }, undefined, []],
    ['back to an older reading: a change', { weather: w1, dome: d2, camera: c3 }, undefined, [w1]],
  ];
  for (const [name, current, type, expected] of steps) assert.equal(newEnvelopes(printed, current, type), expected, name);
  const only = new Map<string, string>();
  assert.equal(newEnvelopes(only, { weather: w1, dome: d2 }, 'dome'), [d2], 'filter');
  assert.equal(newEnvelopes(only, { weather: w4 }, 'dome'), [], 'the type absent');
  assert.equal(newEnvelopes(only, { weather: w4, dome: env('dome', 5, '2026-03-17T20:00:02.000Z') }, 'dome').map((e) => e.seq), [5]);
});

test('currentTable and envelopePanel: the daemon ages and limits, stale and missing on top, cut to the width, control characters neutralised', () => {
  const now = Date.parse('2026-03-17T20:03:00.000Z');
  const current = {
    weather: env('weather', 12, '2026-03-17T20:02:55.000Z', { temp_c: 4.5, humidity: 71 }, { run_id: '042' }),
    'dome status': env('dome status', 3, '2026-03-17T19:58:00.000Z', { shutter: 'open', note: 'a\u0007b' }),
  };
  const freshness = {
    'dome status': { age_s: 300, max_age_s: 120, stale: true },
    power: { age_s: null, max_age_s: 90, stale: true },
    weather: { age_s: 5.5, max_age_s: null, stale: false },
  };
  const o = { now, limitMs: undefined, columns: 60, palette: PALETTES.mono };
  assert.is(currentTable({ current, freshness }, o), [
    '\x1b[1m  TYPE         AGE            SEQ  RUN  DATA\x1b[22m',
    '\x1b[1m  dome status  5m00s STALE      3  -    shutter=open note="…\x1b[22m',
    '\x1b[1m  power        MISSING          -  -    (no reading)\x1b[22m',
    '  weather      5s              12  042  temp_c=4.5 humidity…',
    '',
  ].join('\n'));
  assert.is(currentTable({ current: {} }, o), 'no readings yet\n');
  assert.is(currentTable({ current, freshness }, { ...o, limitMs: 1000, palette: PALETTES.plain }).split('\n')[3],
    '  weather      5s STALE        12  042  temp_c=4.5 humidity…', '--max-age overrides the daemon\'s limits');
  assert.is(currentTable({ current }, { ...o, palette: PALETTES.plain }).split('\n')[1],
    '  dome status  5m00s            3  -    shutter=open note="…', 'a daemon without freshness: local ages, no limits');
  const judge = answerJudge({ current, freshness }, { now, limitMs: undefined });
  assert.is(envelopePanel(env('x\u001b[2Jy', 1, '2026-03-17T20:02:00.000Z', 'v\u009b'), judge, { palette: PALETTES.plain }), [
    'x\uFFFD[2Jy',
    '  seq   1',
    '  ts    2026-03-17T20:02:00.000Z (1m00s ago)',
    '  run   -',
    '  data  "v\uFFFD"',
    '  meta  {}',
    '',
  ].join('\n'));
  assert.is(envelopePanel(current['dome status'], judge, { palette: PALETTES.day }).split('\n').slice(0, 3).join('\n'), [
    '\x1b[1mdome status\x1b[22m',
    '  seq   3',
    '\x1b[33m  ts    2026-03-17T19:58:00.000Z (5m00s ago, STALE)\x1b[39m',
  ].join('\n'));
});

test.run();
