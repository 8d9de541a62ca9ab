import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { cleanEnv, freePort, ROOT, spawnDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';
import { Terminal } from './helpers/tmux.js';

// No plain command loads the console's screen library: the built CLI runs as a child with
// helpers/module-trace.mjs preloaded, which lists every module it loaded. blessed (and the
// console, tui/) must not be among them; the shared table code (table/) is, where a table
// or a status line is printed. A control run proves the trace sees blessed when it loads.

const TRACE = pathToFileURL(path.join(ROOT, 'test', 'helpers', 'module-trace.mjs')).href;
const DIST = pathToFileURL(path.join(ROOT, 'dist')).href;

/** The environment that makes a child write the modules it loads to `file`. */
const traced = (file: string): Record<string, string> => ({ NODE_OPTIONS: `--import=${TRACE}`, MODULE_TRACE_FILE: file });

/** What a traced child loaded: modules of blessed or blessed-contrib, of tui/, and of table/ (relative to dist/). */
function loaded(file: string): { blessed: string[]; tui: string[]; table: string[] } {
  const urls = [...new Set(fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== ''))];
  const own = (room: string) => urls.filter((u) => u.startsWith(`${DIST}/${room}/`)).map((u) => u.slice(DIST.length + 1)).sort();
  return { blessed: urls.filter((u) => /\/node_modules\/blessed(-contrib)?\//.test(u)), tui: own('tui'), table: own('table') };
}

test('status, current, stop and --help load neither blessed nor tui/; status and the terminal table load table/', async () => {
  const dir = tempDir('meridian-trace-');
  try {
    await withTestDaemon({}, async (d) => {
      await postEvent(d.url, { type: 'weather', data: { temp_c: 4.5 } });
      const at = ['--host', '127.0.0.1', '--port', String(d.port)];
      const nowhere = String(await freePort());
      // [name, args, exit code, the table/ modules it loads]
      const rows: Array<[string, string[], number, string[]]> = [
        ['status', ['status', ...at], 0, ['table/format.js']],
        ['status --json', ['status', '--json', ...at], 0, ['table/format.js']],
        ['current piped', ['current', ...at], 0, []],
        ['current --json', ['current', '--json', ...at], 0, []],
        ['current TYPE piped', ['current', 'weather', ...at], 0, []],
        ['stop with no daemon', ['stop', '--host', '127.0.0.1', '--port', nowhere], 0, []],
        ['--help', ['--help'], 0, []],
      ];
      // [name, args, how the screen starts]
      const terminals: Array<[string, string[], RegExp]> = [
        ['current on a terminal', ['current', ...at], /^ {2}TYPE +AGE +SEQ +RUN +DATA\n {2}weather +\d+s +1 +- +temp_c=4\.5$/],
        ['current TYPE on a terminal', ['current', 'weather', ...at], /^weather\n {2}seq {3}1\n/],
      ];
      const piped = rows.map(async ([name, args, code, table], i) => {
        const file = path.join(dir, `piped-${i}`);
        const run = await cli(args, { env: traced(file) });
        assert.equal([run.code, run.stderr], [code, ''], name);
        assert.equal(loaded(file), { blessed: [], tui: [], table }, name);
      });
      // on a terminal: the table and the panel, drawn by the code the console shares
      const onTerminal = terminals.map(async ([name, args, screen], i) => {
        const file = path.join(dir, `tty-${i}`);
        const term = new Terminal();
        try {
          term.run(args, { env: traced(file) });
          const out = await term.output();
          assert.is(out.exit, 0, name);
          assert.match(out.lines.join('\n'), screen, name);
        } finally {
          term.kill();
        }
        assert.equal(loaded(file), {
          blessed: [], tui: [], table: ['table/format.js', 'table/json-layout.js', 'table/palette.js', 'table/row-order.js', 'table/rows.js', 'table/table-lines.js'],
        }, name);
      });
      // every child ends before the daemon closes, also when one of them fails
      const failure = (await Promise.allSettled([...piped, ...onTerminal])).find((r) => r.status === 'rejected');
      if (failure) throw failure.reason;
    });
  } finally {
    removeDir(dir);
  }
});

test('control: the trace sees blessed and tui/ when the console\'s layout is loaded', () => {
  const dir = tempDir('meridian-trace-');
  try {
    const file = path.join(dir, 'console');
    const layout = pathToFileURL(path.join(ROOT, 'dist', 'tui', 'layout.js')).href;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(layout)});`],
      { env: { ...cleanEnv(), ...traced(file) }, encoding: 'utf8', timeout: 30_000 });
    assert.equal([child.status, child.stderr], [0, '']);
    const seen = loaded(file);
    assert.ok(seen.blessed.some((u) => u.endsWith('/node_modules/blessed/lib/blessed.js')), 'blessed itself');
    assert.ok(seen.blessed.some((u) => u.includes('/node_modules/blessed-contrib/')), 'blessed-contrib');
    assert.equal(seen.tui, ['tui/layout.js', 'tui/theme.js']);
  } finally {
    removeDir(dir);
  }
});

/** The client libraries of the sinks (got, mqtt, pg) among what a traced child loaded. */
function sinkLibraries(file: string): string[] {
  const urls = fs.readFileSync(file, 'utf8').split('\n');
  return ['got', 'mqtt', 'pg'].filter((lib) => urls.some((u) => u.includes(`/node_modules/${lib}/`)));
}

test('the daemon loads a sink\'s client library only once it has that sink and it sends: none without sinks', async () => {
  const dir = tempDir('meridian-trace-');
  const received: string[] = [];
  let arrived!: () => void;
  const delivered = new Promise<void>((resolve) => { arrived = resolve; });
  const peer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => { received.push(body); res.end(); arrived(); });
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  try {
    const plain = path.join(dir, 'plain');
    let d = await spawnDaemon({ env: traced(plain) });
    assert.is((await postEvent(d.url, { type: 'weather', data: 1 })).status, 200);
    d.child.kill('SIGTERM');
    assert.is(await d.exited, 0);
    removeDir(d.siteDir);
    assert.equal(sinkLibraries(plain), [], 'no sink: neither got nor mqtt nor pg');

    const forwarding = path.join(dir, 'forwarding');
    const url = `http://127.0.0.1:${(peer.address() as net.AddressInfo).port}/ingest`;
    d = await spawnDaemon({ env: traced(forwarding), args: ['--forward', url] });
    assert.is((await postEvent(d.url, { type: 'weather', data: 2 })).status, 200);
    await delivered;
    d.child.kill('SIGTERM');
    assert.is(await d.exited, 0);
    removeDir(d.siteDir);
    assert.match(received[0]!, /"type":"weather","data":2/);
    assert.equal(sinkLibraries(forwarding), ['got'], 'an HTTP sink: got, once it sends');
  } finally {
    peer.close();
    removeDir(dir);
  }
});

test.run();
