import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { processExited } from '../cli/daemon-exit.js';
import { VERSION } from '../lib/version.js';
import { cli, killDaemon, processAlive, startedPid, waitUntilGone } from './helpers/cli.js';
import { freePort, spawnDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// `run --detach`, `status` and `stop` through the built executables against real daemons:
// exact output, exit codes, and no process left behind.

const started = (pid: number, port: number, log: string) => `telemetry daemon started: pid ${pid}, http://127.0.0.1:${port}, log ${log}\n`;

test('run --detach, status, stop: the daemon starts in its own session, answers, and is gone after stop; stop twice is fine', async () => {
  const port = await freePort();
  const site = tempDir();
  const at = ['--host', '127.0.0.1', '--port', String(port)];
  let pid: number | undefined;
  try {
    const run = await cli(['run', '--detach', ...at, '--site-dir', site]);
    pid = startedPid(run.stdout);
    assert.ok(pid, run.stdout + run.stderr);
    const log = path.join(site, '.meridian', 'daemon.log');
    assert.is(run.stdout, started(pid!, port, log));
    assert.is(run.stderr, '');
    assert.is(run.code, 0);
    assert.ok(processAlive(pid!), 'the daemon outlives the command');
    const sid = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[3];
    assert.is(sid, String(pid), 'the daemon leads its own session');

    const status = await cli(['status', ...at]);
    assert.match(status.stdout, new RegExp(`^telemetry daemon at 127\\.0\\.0\\.1:${port}  pid ${pid}  version ${VERSION.replace(/\./g, '\\.')}  up \\d+s  site  0 types\\nrollups ok\\n$`));
    assert.is(status.stderr, '');
    assert.is(status.code, 0);

    await postEvent(`http://127.0.0.1:${port}`, { type: 'weather', data: 1 });
    await request(`http://127.0.0.1:${port}`, '/run/start', { method: 'POST', body: { run_id: '042' } });
    await postEvent(`http://127.0.0.1:${port}`, { type: 'camera', data: 2 });
    const inRun = await cli(['telemetry', 'status', ...at], { bin: 'meridian' });
    assert.match(inRun.stdout, new RegExp(`^telemetry daemon at 127\\.0\\.0\\.1:${port}  pid ${pid}  version \\S+  up \\d+s  run 042  2 types\\nrollups ok\\n$`));
    const json = await cli(['status', '--json', ...at]);
    const body = JSON.parse(json.stdout);
    assert.equal(body, { version: VERSION, pid, started_at: body.started_at, address: `127.0.0.1:${port}`, site_dir: path.resolve(site), run_id: '042', types: 2,
      recorded: { permanent: 2, ephemeral: 0 }, authenticated: false, suspended_run: null, disk_full: null, forward: [], stale: 0, max_age: {}, learned: {}, rollups: { state: 'ok', since: null, reason: null, last_rebuild: null } });
    assert.match(body.started_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.is(json.stdout, `${(await request(`http://127.0.0.1:${port}`, '/status')).text}\n`, 'exactly the API body');

    const stop = await cli(['stop', ...at]);
    assert.is(stop.stdout, `telemetry daemon at 127.0.0.1:${port} stopped (pid ${pid})\n`);
    assert.is(stop.stderr, '');
    assert.is(stop.code, 0);
    assert.ok(processExited(pid!), 'exited when stop returns');
    assert.ok(await waitUntilGone(pid!), 'and collected: kill(pid, 0) gives ESRCH');
    const logText = fs.readFileSync(log, 'utf8');
    assert.match(logText, new RegExp(`INFO listening on http://127\\.0\\.0\\.1:${port} `));
    assert.match(logText, /INFO shutdown requested over HTTP\n.*INFO stopped\n$/);

    const again = await cli(['stop', ...at]);
    assert.is(again.stdout, `no telemetry daemon at 127.0.0.1:${port}\n`);
    assert.is(again.stderr, '');
    assert.is(again.code, 0);

    // a second start appends to the same log
    const rerun = await cli(['run', '--detach', ...at, '--site-dir', site]);
    pid = startedPid(rerun.stdout);
    assert.is(rerun.stdout, started(pid!, port, log));
    assert.is((await cli(['stop', ...at])).code, 0);
    assert.is(fs.readFileSync(log, 'utf8').match(/INFO listening on/g)?.length, 2);
    assert.ok(await waitUntilGone(pid!));
  } finally {
    killDaemon(pid);
    removeDir(site);
  }
});

test('run --detach on a port held by another program: one line from the daemon log, exit 1, nothing left running or written', async () => {
  const holder = net.createServer(); // accepts connections and never answers
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as net.AddressInfo).port;
  const site = tempDir();
  try {
    const run = await cli(['run', '--detach', '--host', '127.0.0.1', '--port', String(port), '--site-dir', site]);
    const why = `cannot listen on 127.0.0.1:${port}: the port is already in use by another program (it does not answer HTTP)`;
    assert.is(run.stderr, `telemetry: the daemon did not start: ${why}\n`);
    assert.is(run.stdout, '');
    assert.is(run.code, 1);
    const log = fs.readFileSync(path.join(site, '.meridian', 'daemon.log'), 'utf8');
    assert.match(log, new RegExp(`^\\S+Z ERROR ${why.replace(/[()]/g, '\\$&')}\\n$`), 'no recovery line before the error');
    assert.equal(fs.readdirSync(path.join(site, '.meridian')), ['daemon.log'], 'nothing but the log written');
  } finally {
    holder.close();
    removeDir(site);
  }
});

test('run on the port of a running telemetry daemon: refused naming its pid and site, the running one untouched', async () => {
  const d = await spawnDaemon();
  const site = tempDir();
  try {
    const why = `cannot listen on 127.0.0.1:${d.port}: the port is already in use by another telemetry daemon ` +
      `(pid ${d.child.pid}, site ${path.resolve(d.siteDir)}, version ${VERSION}): ` +
      `stop it with \`meridian telemetry stop --port ${d.port}\`, or start this one with another --port`;
    const run = await cli(['run', '--detach', '--host', '127.0.0.1', '--port', String(d.port), '--site-dir', site]);
    assert.is(run.stderr, `telemetry: the daemon did not start: ${why}\n`);
    assert.is(run.stdout, '');
    assert.is(run.code, 1);
    // in the foreground: the one error line, no recovery lines that read like a start
    const foreground = await cli(['run', '--host', '127.0.0.1', '--port', String(d.port), '--site-dir', site]);
    assert.match(foreground.stderr, new RegExp(`^\\S+Z ERROR ${why.replace(/[()`.]/g, '\\$&')}\\n$`));
    assert.is(foreground.code, 1);
    assert.is((await request(d.url, '/status')).json.pid, d.child.pid);
  } finally {
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
    removeDir(site);
  }
});

test('run --detach with an unusable site directory (also under /proc), an unusable log file, or a public address without token: exit 1, one line', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'not-a-dir');
  fs.writeFileSync(file, 'x');
  const port = String(await freePort());
  try {
    const rows: Array<[string, string[], string]> = [
      ['site dir under a file (default log)', ['--site-dir', path.join(file, 'site')],
        `site directory ${path.join(file, 'site')} is not usable (ENOTDIR)`],
      ['site dir under a file, log elsewhere: the reason comes from the daemon log', ['--site-dir', path.join(file, 'site'), '--log-file', path.join(dir, 'd.log')],
        `site directory ${path.join(file, 'site')} is not usable (ENOTDIR)`],
      ['log file under a file', ['--site-dir', path.join(dir, 'site'), '--log-file', path.join(file, 'd.log')],
        `cannot open the log file ${path.join(file, 'd.log')} (ENOTDIR)`],
      ['public address without a token', ['--host', '0.0.0.0', '--site-dir', path.join(dir, 'site')],
        'refusing to bind 0.0.0.0 without a token: set --token or MERIDIAN_TELEMETRY_TOKEN, bind localhost, or accept an open daemon with --allow-unauthenticated'],
      ['site dir under /proc (a recursive mkdir would spin there forever)', ['--site-dir', '/proc/meridian-telemetry'],
        'site directory /proc/meridian-telemetry is not usable (ENOENT)'],
    ];
    for (const [name, args, reason] of rows) {
      const run = await cli(['run', '--detach', '--port', port, ...(args.includes('--host') ? [] : ['--host', '127.0.0.1']), ...args]);
      assert.is(run.stderr, `telemetry: the daemon did not start: ${reason}\n`, name);
      assert.is(run.stdout, '', name);
      assert.is(run.code, 1, name);
    }
    assert.match(fs.readFileSync(path.join(dir, 'd.log'), 'utf8'), /Z ERROR site directory .* is not usable \(ENOTDIR\)\n$/);
  } finally {
    removeDir(dir);
  }
});

test('run --detach --timeout: a daemon not ready in time is stopped again, exit 1', async () => {
  const site = tempDir();
  const port = await freePort();
  try {
    const run = await cli(['run', '--detach', '--host', '127.0.0.1', '--port', String(port), '--site-dir', site, '--timeout', '0.001']);
    const log = path.join(site, '.meridian', 'daemon.log');
    const m = new RegExp(`^telemetry: the daemon did not start: it did not answer /ready within 0\\.001s; stopped it \\(pid (\\d+), log ${log.replace(/[.]/g, '\\.')}\\)\\n$`).exec(run.stderr);
    assert.ok(m, run.stderr);
    assert.is(run.stdout, '');
    assert.is(run.code, 1);
    assert.ok(processExited(Number(m![1])), 'the half-started daemon was stopped');
    assert.is((await cli(['status', '--host', '127.0.0.1', '--port', String(port)])).code, 3);
  } finally {
    removeDir(site);
  }
});

test('a daemon with a token: commands without it get exit 1 and the daemon\'s reason; with it they work; the token is not on its command line', async () => {
  const site = tempDir();
  const port = await freePort();
  const at = ['--host', '127.0.0.1', '--port', String(port)];
  let pid: number | undefined;
  try {
    const run = await cli(['run', '--detach', ...at, '--site-dir', site, '--token', 's3cret']);
    pid = startedPid(run.stdout);
    assert.is(run.code, 0, run.stderr);
    assert.not.match(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /s3cret/);
    const rows: Array<[string, string[], Record<string, string>, number, string]> = [
      ['status without token', ['status'], {}, 1, 'telemetry: this daemon needs a token: send Authorization: Bearer <token> (UNAUTHORIZED)\n'],
      ['current with a wrong token', ['current', '--token', 'nope'], {}, 1, 'telemetry: the token is wrong (FORBIDDEN)\n'],
      ['stop without token', ['stop'], {}, 1, 'telemetry: this daemon needs a token: send Authorization: Bearer <token> (UNAUTHORIZED)\n'],
      ['status with the token from the environment', ['status', '--json'], { MERIDIAN_TELEMETRY_TOKEN: 's3cret' }, 0, ''],
      ['current with --token', ['current', '--token', 's3cret'], {}, 0, ''],
    ];
    for (const [name, args, env, code, stderr] of rows) {
      const got = await cli([...args, ...at], { env });
      assert.is(got.stderr, stderr, name);
      assert.is(got.code, code, name);
    }
    assert.ok(processAlive(pid!), 'still running after the refused stop');
    const stop = await cli(['stop', ...at, '--token', 's3cret']);
    assert.is(stop.stdout, `telemetry daemon at 127.0.0.1:${port} stopped (pid ${pid})\n`);
    assert.is(stop.code, 0);
  } finally {
    killDaemon(pid);
    removeDir(site);
  }
});

test('stop a foreground daemon (meridian telemetry run): it exits 0; stop --timeout gives up on one that keeps running', async () => {
  const d = await spawnDaemon();
  try {
    const stop = await cli(['telemetry', 'stop', '--host', '127.0.0.1', '--port', String(d.port)], { bin: 'meridian' });
    assert.is(stop.stdout, `telemetry daemon at 127.0.0.1:${d.port} stopped (pid ${d.child.pid})\n`);
    assert.is(stop.stderr, '');
    assert.is(stop.code, 0);
    assert.is(await d.exited, 0);
  } finally {
    if (d.child.exitCode === null) d.child.kill('SIGKILL');
    removeDir(d.siteDir);
  }

  // something that answers like a daemon but never goes away
  const stuck = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(req.url === '/status' ? JSON.stringify({ version: VERSION, pid: process.pid, started_at: '2026-01-01T00:00:00.000Z', address: 'x', run_id: null, types: 0 })
      : '{"shutting_down":true}');
  });
  await new Promise<void>((resolve) => stuck.listen(0, '127.0.0.1', resolve));
  const port = (stuck.address() as net.AddressInfo).port;
  try {
    const stop = await cli(['stop', '--host', '127.0.0.1', '--port', String(port), '--timeout', '0.3']);
    assert.is(stop.stderr, `telemetry: the telemetry daemon at 127.0.0.1:${port} (pid ${process.pid}) did not exit within 0.3s\n`);
    assert.is(stop.stdout, '');
    assert.is(stop.code, 1);
  } finally {
    stuck.closeAllConnections();
    stuck.close();
  }
});

test.run();
