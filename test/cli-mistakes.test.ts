import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';

// Operator mistakes the command line must answer plainly: durations out of range (a poll
// interval beyond Node's timers made the console spin), negative values, a mistyped command,
// a host with a port in it, and a port where some other web server answers.

const DURATIONS: Array<[string, string[], string]> = [
  ['interval beyond an hour', ['current', '--follow', '--interval', '99999999999'],
    'telemetry: --interval must be a number of seconds from 0.1 to 3600 (such as 60 or 0.5); got "99999999999" (see "telemetry current --help")'],
  ['negative interval', ['current', '--follow', '--interval', '-1'],
    'telemetry: --interval must be a number of seconds from 0.1 to 3600 (such as 60 or 0.5); got "-1" (see "telemetry current --help")'],
  ['interval below 0.1 s', ['current', '--follow', '--interval', '0.01'],
    'telemetry: --interval must be a number of seconds from 0.1 to 3600 (such as 60 or 0.5); got "0.01" (see "telemetry current --help")'],
  ['stop timeout beyond the timers', ['stop', '--timeout', '3000000'],
    'telemetry: --timeout must be a number of seconds from 0.001 to 2147483 (such as 60 or 0.5); got "3000000" (see "telemetry stop --help")'],
  ['negative stale age', ['current', '--stale', '-5'],
    'telemetry: --stale must be a number of seconds of at least 0.001 (such as 60 or 0.5); got "-5" (see "telemetry current --help")'],
  ['a stale age written with an exponent', ['current', '--stale', '1e-9'],
    'telemetry: --stale must be a number of seconds of at least 0.001 (such as 60 or 0.5); got "1e-9" (see "telemetry current --help")'],
  ['a max age below a millisecond', ['current', 'power', '--max-age', '0.0001'],
    'telemetry: --max-age must be a number of seconds of at least 0.001 (such as 60 or 0.5); got "0.0001" (see "telemetry current --help")'],
  ['a mistyped command', ['stauts'], 'telemetry: unknown command "stauts"; did you mean "telemetry status"? (see "telemetry --help")'],
  ['two letters swapped', ['sotp'], 'telemetry: unknown command "sotp"; did you mean "telemetry stop"? (see "telemetry --help")'],
  ['a host with a port', ['status', '--host', 'localhost:18001'],
    'telemetry: --host must be a host name or address; got "localhost:18001" (see "telemetry status --help")'],
  ['a host with a port, for the daemon', ['run', '--host', 'localhost:18001'],
    'telemetry: --host must be a host name or address; got "localhost:18001" (see "telemetry run --help")'],
];

test('durations, typos and hosts: exit 2 with one line naming the option, the range and the value', async () => {
  await Promise.all(DURATIONS.map(async ([name, args, stderr]) => {
    const run = await cli(args);
    assert.equal([run.code, run.stdout, run.stderr], [2, '', `${stderr}\n`], name);
  }));
});

test('meridian suggests the command under its group word for a typo too', async () => {
  const run = await cli(['telemetry', 'stauts'], { bin: 'meridian' });
  assert.equal([run.code, run.stderr], [2, 'meridian: unknown command "stauts"; did you mean "meridian telemetry status"? (see "meridian --help")\n']);
});

test('another kind of web server on the port: "no telemetry daemon at ..." (exit 3; stop exit 0, as with none running)', async () => {
  const server = http.createServer((_req, res) => res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not Found</h1>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = String((server.address() as AddressInfo).port);
  const at = ['--host', '127.0.0.1', '--port', port];
  const why = `no telemetry daemon at 127.0.0.1:${port} (another kind of server answers there: 404 Not Found)`;
  try {
    const [status, current, stop] = await Promise.all([cli(['status', ...at]), cli(['current', 'weather', ...at]), cli(['stop', ...at])]);
    assert.equal([status.code, status.stdout, status.stderr], [3, '', `telemetry: ${why}\n`], 'status');
    assert.equal([current.code, current.stdout, current.stderr], [3, '', `telemetry: ${why}\n`], 'current');
    assert.equal([stop.code, stop.stdout, stop.stderr], [0, `${why}\n`, ''], 'stop');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
