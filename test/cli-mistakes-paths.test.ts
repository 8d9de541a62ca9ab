import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CliIo } from '../cli/io.js';
import { progressBar } from '../cli/progress.js';
import { cli } from './helpers/cli.js';
import { follow, post, row, withConsole } from './helpers/console-screen.js';
import { freePort } from './helpers/daemon.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Operator mistakes with paths, spans, command names and terminals, through the real CLI:
// one line, the documented exit code, never a stack or "internal error".

test('paths, spans and command names: one line and the documented exit code', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, 'x\n');
  const missing = path.join(dir, 'missing');
  const rows: Array<[string, string[], number, string]> = [
    ['du on a file', ['du', '--site-dir', file], 2, `--site-dir must be a directory; got "${file} (not a directory)" (see "telemetry du --help")`],
    ['du on a missing directory', ['du', '--site-dir', missing], 1, `no site directory at ${missing} (nothing was recorded there, or --site-dir is mistyped)`],
    ['du --json on a missing directory', ['du', '--json', '--site-dir', missing], 1, `no site directory at ${missing} (nothing was recorded there, or --site-dir is mistyped)`],
    ['--since beyond any date', ['history', 'x', '--since', '99999999999d', '--port', '1'], 2, '--since must be a duration from 1s to 36500d; got "99999999999d" (see "telemetry history --help")'],
    ['--since of nothing', ['history', 'x', '--since', '0s', '--port', '1'], 2, '--since must be a duration from 1s to 36500d; got "0s" (see "telemetry history --help")'],
    ['--since not a span', ['history', 'x', '--since', '2 days', '--port', '1'], 2, '--since must be a duration such as 30m, 2h, 1d (s, m, h, d, w); got "2 days" (see "telemetry history --help")'],
    ['--from beyond any date', ['history', 'x', '--from', '-99999999999d', '--port', '1'], 2, '--from must be a duration from 1s to 36500d; got "99999999999d" (see "telemetry history --help")'],
    ['--to beyond any date', ['history', 'x', '--to', '5000000w', '--port', '1'], 2, '--to must be a duration from 1s to 36500d; got "5000000w" (see "telemetry history --help")'],
    ['--compress-after beyond any date', ['run', '--compress-after', '99999999999d'], 2, '--compress-after must be an age of at most 36500d (876000h); got "99999999999d" (see "telemetry run --help")'],
    ['--retain beyond any date', ['run', '--retain', '876001h'], 2, '--retain must be an age of at most 36500d (876000h); got "876001h" (see "telemetry run --help")'],
    ['hist', ['hist'], 2, 'unknown command "hist"; did you mean "telemetry history"? (see "telemetry --help")'],
    ['im', ['im'], 2, 'unknown command "im"; did you mean "telemetry import"? (see "telemetry --help")'],
    ['s', ['s'], 2, 'unknown command "s"; did you mean "telemetry stop", "telemetry status", "telemetry safety" or "telemetry shelve"? (see "telemetry --help")'],
    ['histroy', ['histroy'], 2, 'unknown command "histroy"; did you mean "telemetry history"? (see "telemetry --help")'],
    ['nothing near', ['xyzzy'], 2, 'unknown command "xyzzy" (see "telemetry --help")'],
    ['--config /dev/zero (never ends)', ['run', '--config', '/dev/zero', '--port', '1'], 2, '--config must be a regular file; got "/dev/zero (not a regular file)" (see "telemetry run --help")'],
    ['import a directory', ['import', dir, '--port', '1'], 2, `FILE must be a regular file of NDJSON events; ${dir} is a directory (see "telemetry import --help")`],
  ];
  try {
    for (const [name, args, code, line] of rows) {
      const run = await cli(args);
      assert.equal([run.code, run.stdout, run.stderr], [code, '', `telemetry: ${line}\n`], name);
    }
    const hist = await cli(['telemetry', 'hist'], { bin: 'meridian' });
    assert.equal([hist.code, hist.stderr], [2, 'meridian: unknown command "hist"; did you mean "meridian telemetry history"? (see "meridian --help")\n']);
  } finally {
    removeDir(dir);
  }
});

test('an unusable --log-file: one line, exit 1, in the foreground and with --detach (a path under /proc no longer hangs)', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, 'x\n');
  const rows: Array<[string, string, string]> = [
    ['under /proc', '/proc/meridian-nope/daemon.log', 'ENOENT'],
    ['a directory', dir, 'EISDIR'],
    ['under a file', path.join(file, 'daemon.log'), 'ENOTDIR'],
  ];
  try {
    for (const [name, log, code] of rows) {
      const port = String(await freePort());
      const foreground = await cli(['run', '--port', port, '--site-dir', path.join(dir, 'site'), '--log-file', log], { timeoutMs: 15_000 });
      assert.equal([foreground.code, foreground.stdout, foreground.stderr], [1, '', `cannot open the log file ${log} (${code})\n`], `${name}, foreground`);
      const detached = await cli(['run', '--detach', '--port', port, '--site-dir', path.join(dir, 'site'), '--log-file', log], { timeoutMs: 15_000 });
      assert.equal([detached.code, detached.stdout, detached.stderr], [1, '', `telemetry: the daemon did not start: cannot open the log file ${log} (${code})\n`], `${name}, --detach`);
    }
  } finally {
    removeDir(dir);
  }
});

test('stop against a listener that is not a telemetry daemon: says why, leaves it alone, exit 0', async () => {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => { sockets.add(s); s.end('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n'); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  try {
    const stop = await cli(['stop', '--host', '127.0.0.1', '--port', String(port)]);
    assert.equal([stop.code, stop.stderr, stop.stdout], [0, '',
      `no telemetry daemon at 127.0.0.1:${port} (the answer is not HTTP; something else listens there and was left alone)\n`]);
    assert.ok(server.listening, 'still listening');
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('the console on a 20x6 terminal says it is too small and what it needs; grown to 40x8 it shows a row; q quits', () => withConsole(async (d, t) => {
  await post(d, 'weather', { temp_c: 4 });
  t.run(follow(d), { width: 20, height: 6 });
  const small = await t.waitFor('too small', (s) => s.startsWith('too small'));
  assert.equal(small.trimEnd().split('\n').map((l) => l.trimEnd()), ['too small: 20x6', 'needs 40x8', 'q quits']);
  t.resize(40, 8);
  const grown = await t.waitFor('a row', (s) => row(s, 'weather') !== undefined);
  assert.not.match(grown, /too small/);
  t.resize(39, 8);
  await t.waitFor('too small again', (s) => s.startsWith('too small: 39x8'));
  t.keys('q');
  const end = await t.output();
  assert.equal([end.exit, end.restored], [0, true]);
}));

test('TERM=dumb: no progress bar escape codes on a terminal that cannot erase a line', () => {
  const drawn: string[] = [];
  const bar = progressBar({ stderrIsTTY: true, env: { TERM: 'dumb' }, err: (t: string) => drawn.push(t) } as unknown as CliIo, 'importing f');
  bar.update(0.5, '1 event(s)');
  bar.done();
  assert.equal(drawn, []);
});

test.run();
