import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startFailureReason } from '../launcher/launch-failure.js';
import { unitIdOfHost } from '../lib/setting-values.js';
import { killDaemon, waitUntilGone } from './helpers/cli.js';
import { freePort, ROOT } from './helpers/daemon.js';
import { postEvent } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// startTelemetryServer as a user gets it: imported from the built package entry (dist/index.js),
// starting the real daemon in the background (the code path of `telemetry run --detach`).

type Package = typeof import('../dist/index.js');
const load = (): Promise<Package> => import(pathToFileURL(path.join(ROOT, 'dist', 'index.js')).href);

test('autoStart false: nothing runs until start(); then ready() gives its status; options reach the daemon; shutdown ends it', async () => {
  const { startTelemetryServer, TelemetryClient } = await load();
  const siteDir = tempDir();
  const port = await freePort();
  const server = startTelemetryServer({ siteDir, host: '127.0.0.1', port, autoStart: false, accessLogs: true, verbose: true, env: {} });
  try {
    assert.is(server.child, undefined);
    assert.is(server.pid, undefined);
    assert.is(server.url, `http://127.0.0.1:${port}`);
    assert.is(server.logFile, path.join(siteDir, '.meridian', 'daemon.log'));
    assert.is(server.command, process.execPath);
    assert.equal(server.args, ['--max-semi-space-size=8', '--heap-growing-percent=50', path.join(ROOT, 'dist', 'cli', 'meridian.js'), 'telemetry', 'run', '--host', '127.0.0.1', '--port', String(port),
      '--site-dir', siteDir, '--fsync', 'batch', '--max-body', '1048576', '--shutdown-timeout', '3', '--verbose', '--access-logs', '--log-format', 'text',
      // the unit id the launcher resolved (the host name): the child names its records the same
      '--unit-id', unitIdOfHost(os.hostname()),
      '--log-file', path.join(siteDir, '.meridian', 'daemon.log')]);
    assert.not.ok(fs.existsSync(server.logFile), 'not started: no log yet');

    const child = server.start();
    assert.is(server.start(), child, 'start() twice gives the same child');
    assert.type(server.pid, 'number');
    const status = await server.ready();
    assert.is(status.pid, server.pid);
    assert.is(status.address, `127.0.0.1:${port}`);
    await postEvent(server.url, { type: 'weather', data: 1 });
    await new TelemetryClient({ baseUrl: server.url, env: {} }).shutdown();
    const result = await child;
    assert.is(result.exitCode, 0);
    assert.ok(await waitUntilGone(server.pid!), 'gone');
    const log = fs.readFileSync(server.logFile, 'utf8');
    assert.match(log, / DEBUG event type="weather" target=site /, '--verbose');
    assert.match(log, / INFO 127\.0\.0\.1 POST \/event 200 \d+ms\n/, '--access-logs');
  } finally {
    killDaemon(server.pid);
    removeDir(siteDir);
  }
});

test('autoStart (default): started at once; the token goes to the daemon in its environment, not on its command line', async () => {
  const { startTelemetryServer, TelemetryClient } = await load();
  const siteDir = tempDir();
  const server = startTelemetryServer({ siteDir, host: '127.0.0.1', port: await freePort(), token: 'tok', env: { PATH: process.env.PATH } });
  try {
    assert.type(server.pid, 'number');
    await server.ready({ timeout: 15 });
    assert.not.match(fs.readFileSync(`/proc/${server.pid}/cmdline`, 'utf8'), /tok/);
    assert.ok(fs.readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0').includes('MERIDIAN_TELEMETRY_TOKEN=tok'));
    const client = new TelemetryClient({ baseUrl: server.url, token: 'tok', env: {} });
    assert.is((await client.status()).pid, server.pid);
    await client.shutdown();
    assert.is((await server.child!).exitCode, 0);
  } finally {
    killDaemon(server.pid);
    removeDir(siteDir);
  }
});

test('a daemon that cannot start: ready() rejects with TelemetryStartError and the reason from its log; bad options throw at once', async () => {
  const { startTelemetryServer, TelemetryStartError } = await load();
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as net.AddressInfo).port;
  const siteDir = tempDir();
  try {
    const server = startTelemetryServer({ siteDir, host: '127.0.0.1', port, env: {} });
    const error = await server.ready().then(() => undefined, (e: unknown) => e);
    assert.instance(error, TelemetryStartError);
    const e = error as InstanceType<typeof TelemetryStartError>;
    assert.is(e.reason, `cannot listen on 127.0.0.1:${port}: the port is already in use by another program (it does not answer HTTP)`);
    assert.is(e.exitCode, 1);
    assert.is(e.pid, server.pid);
    assert.is(e.timedOut, false);
    assert.is(e.logFile, server.logFile);
    assert.is(e.message, `the telemetry daemon did not start: ${e.reason}`);
    assert.throws(() => startTelemetryServer({ siteDir, fsync: 'sometimes', env: {} }), /--fsync must be one of always, batch, off; got "sometimes"/);
    assert.throws(() => startTelemetryServer({ siteDir, port: 'x', env: {} }), /--port must be a whole number from 1 to 65535; got "x"/);
  } finally {
    holder.close();
    removeDir(siteDir);
  }
});

test('startFailureReason: the last ERROR line, else the last "meridian:" message, else nothing', () => {
  const rows: Array<[string, string, string | undefined]> = [
    ['an ERROR line', '2026-03-17T20:00:00.000Z INFO recovered\n2026-03-17T20:00:00.001Z ERROR cannot listen on x:1: the port is already in use\n',
      'cannot listen on x:1: the port is already in use'],
    ['the last of two ERROR lines', '2026-03-17T20:00:00.000Z ERROR first\n2026-03-17T20:00:00.001Z ERROR second\n', 'second'],
    ['an ERROR line wins over a later message', '2026-03-17T20:00:00.000Z ERROR real\nmeridian: other\n', 'real'],
    ['a bad option message', 'meridian: --fsync must be one of always, batch, off; got "x" (see "meridian telemetry run --help")\n',
      '--fsync must be one of always, batch, off; got "x" (see "meridian telemetry run --help")'],
    ['CRLF and trailing blanks', '2026-03-17T20:00:00.000Z ERROR spaced   \r\n\r\n', 'spaced'],
    ['a crash with a stack', 'file:///x.js:1\nthrow new Error("boom")\n\nError: boom\n    at x.js:1:7\n', undefined],
    ['an INFO line only', '2026-03-17T20:00:00.000Z INFO stopped\n', undefined],
    ['nothing', '', undefined],
  ];
  for (const [name, text, reason] of rows) assert.is(startFailureReason(text), reason, name);
});

test.run();
