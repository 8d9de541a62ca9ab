import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli, RunningCli } from './helpers/cli.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { request } from './helpers/http.js';
import { readLines, removeDir, tempDir } from './helpers/tmp.js';

// `telemetry import` against what a file and a daemon can be: batches within the daemon's body
// limit (learned from its 413 when smaller than the default), a line larger than the limit,
// paths that are no regular file, and Ctrl-C in the middle (resumed without duplicates).

const at = (d: TestDaemon) => ['--host', '127.0.0.1', '--port', String(d.port)];
const stored = (d: TestDaemon) => fs.readdirSync(d.siteDir).filter((f) => f.startsWith('site_')).sort()
  .flatMap((f) => readLines(path.join(d.siteDir, f)) as Array<{ data: { i: number } }>);

/** `count` event lines of about `bytes` bytes each, in a fresh directory. */
function rows(count: number, bytes: number): { file: string; lines: string[] } {
  const lines = Array.from({ length: count }, (_, i) => {
    const head = JSON.stringify({ type: 'spectrum', data: { i, pad: '' } });
    return head.replace('"pad":""', `"pad":"${'x'.repeat(Math.max(0, bytes - head.length))}"`);
  });
  const file = path.join(tempDir(), 'events.ndjson');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, lines };
}

const requestsFor = (lines: string[], limit: number, perBatch: number) => {
  let requests = 0;
  let body = Infinity;
  let n = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (body + size > limit || n === perBatch) { requests++; body = 0; n = 0; }
    body += size;
    n++;
  }
  return requests;
};

test('rows of ~1.1 KB at the default batch size: batches stay within the 1 MiB body limit, every event once', () => withTestDaemon({}, async (d) => {
  const { file, lines } = rows(2500, 1100);
  try {
    const run = await cli(['import', file, ...at(d)]);
    const requests = requestsFor(lines, 1048576, 1000);
    assert.equal([run.code, run.stderr, run.stdout], [0, '', `imported 2500 event(s) from ${file} in ${requests} request(s)\n`]);
    assert.is(requests, 3);
    assert.equal(stored(d).map((e) => e.data.i), lines.map((_, i) => i));
  } finally {
    removeDir(path.dirname(file));
  }
}));

test('a daemon with a smaller --max-body: its 413 names the limit, the batch is split, nothing twice; --max-body sends none too large', () => withTestDaemon({ flags: { maxBody: 65536 } }, async (d) => {
  const { file, lines } = rows(300, 1100);
  try {
    const learned = await cli(['import', file, ...at(d)]);
    assert.equal([learned.code, learned.stderr], [0, '']);
    assert.is(learned.stdout, `imported 300 event(s) from ${file} in ${requestsFor(lines, 65536, 1000)} request(s)\n`);
    const told = await cli(['import', file, '--max-body', '65536', ...at(d)]);
    assert.equal([told.code, told.stderr, told.stdout], [0, '', `imported 300 event(s) from ${file} in 6 request(s)\n`]);
    assert.equal(stored(d).map((e) => e.data.i), [...lines.map((_, i) => i), ...lines.map((_, i) => i)]);
  } finally {
    removeDir(path.dirname(file));
  }
}));

test('a line larger than the body limit: named with its size and how to go on; --partial records the rest', () => withTestDaemon({ flags: { maxBody: 4096 } }, async (d) => {
  const { file, lines } = rows(5, 200);
  lines[2] = rows(1, 5000).lines[0]!.replace('"i":0', '"i":2');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const size = Buffer.byteLength(lines[2]!);
  try {
    const stop = await cli(['import', file, '--max-body', '4096', '--batch-size', '2', ...at(d)]);
    assert.equal([stop.code, stop.stdout, stop.stderr], [1, '', `telemetry: line 3 is ${size} bytes, more than the daemon's body limit (4096 bytes, its --max-body); `
      + `nothing of it was recorded; 2 event(s) before it were. Shorten it, or go on after it with: telemetry import ${file} --start-line 4\n`]);
    const partial = await cli(['import', file, '--max-body', '4096', '--partial', ...at(d)]);
    assert.equal([partial.code, partial.stdout, partial.stderr], [1, `imported 4 event(s) from ${file} in 2 request(s); 1 invalid line(s) not recorded\n`,
      `telemetry: line 3: ${size} bytes, more than the daemon's body limit (4096 bytes, its --max-body) (BODY_TOO_LARGE)\n`]);
    assert.equal(stored(d).map((e) => e.data.i), [0, 1, 0, 1, 3, 4]);
  } finally {
    removeDir(path.dirname(file));
  }
}));

test('a file without line breaks (3 MiB of bytes) is one line over the limit, never held whole; CRLF line ends are line ends', () => withTestDaemon({}, async (d) => {
  const dir = tempDir();
  const blob = path.join(dir, 'blob.bin');
  fs.writeFileSync(blob, Buffer.alloc(3 * 1024 * 1024, 0x41));
  const crlf = path.join(dir, 'crlf.ndjson');
  fs.writeFileSync(crlf, '{"type":"a","data":1.0}\r\n\r\n{"type":"a","data":2}\r\n');
  try {
    const big = await cli(['import', blob, ...at(d)]);
    assert.equal([big.code, big.stdout, big.stderr], [1, '', `telemetry: line 1 is 3145728 bytes, more than the daemon's body limit (1048576 bytes, its --max-body); `
      + `nothing of it was recorded; 0 event(s) before it were. Shorten it, or go on after it with: telemetry import ${blob} --start-line 2\n`]);
    const ok = await cli(['import', crlf, ...at(d)]);
    assert.equal([ok.code, ok.stderr, ok.stdout], [0, '', `imported 2 event(s) from ${crlf} in 1 request(s)\n`]);
    assert.equal(stored(d).map((e) => e.data), [1, 2]);
  } finally {
    removeDir(dir);
  }
}));

test('a directory, a FIFO or a device as FILE: one line, exit 2, before any daemon is asked', async () => {
  const dir = tempDir();
  const fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  const rowsOf: Array<[string, string, string]> = [
    ['a directory', dir, `${dir} is a directory`],
    ['a FIFO', fifo, `${fifo} is a FIFO (a named pipe: copy what it carries into a file first)`],
    ['/dev/zero', '/dev/zero', '/dev/zero is a device'],
  ];
  try {
    for (const [name, file, why] of rowsOf) {
      const run = await cli(['import', file, '--port', '1']);
      assert.equal([run.code, run.stdout, run.stderr], [2, '', `telemetry: FILE must be a regular file of NDJSON events; ${why} (see "telemetry import --help")\n`], name);
    }
    const bad = await cli(['import', fifo, '--start-line', '0']);
    assert.equal([bad.code, bad.stderr], [2, 'telemetry: --start-line must be a whole number from 1 to 9007199254740991; got "0" (see "telemetry import --help")\n']);
  } finally {
    removeDir(dir);
  }
});

test('Ctrl-C: the batch in flight finishes, what was recorded and the line to resume from are said (exit 130); resuming records each event once', () => withTestDaemon({}, async (d) => {
  const { file, lines } = rows(20000, 100);
  try {
    const importing = new RunningCli(['import', file, '--batch-size', '5', ...at(d)]);
    try {
      await waitFor('some events recorded', async () => ((await request(d.url, '/status')).json.recorded.permanent >= 200 ? true : undefined));
      importing.child.kill('SIGINT');
      assert.is(await importing.exited, 130);
    } finally {
      importing.kill();
    }
    const said = /^telemetry: interrupted: (\d+) event\(s\) recorded, every line up to line (\d+) of (.+) was sent; resume without duplicates with: telemetry import (.+) --start-line (\d+)\n$/.exec(importing.err);
    assert.ok(said, importing.err);
    const [recorded, last, , again, next] = [Number(said![1]), Number(said![2]), said![3], said![4], Number(said![5])];
    assert.equal([recorded, last, next, again, importing.out], [stored(d).length, recorded, recorded + 1, file, '']);
    assert.ok(recorded < 20000, 'interrupted before the end');
    const resumed = await cli(['import', file, '--start-line', String(next), ...at(d)]);
    assert.equal([resumed.code, resumed.stderr], [0, '']);
    assert.is(resumed.stdout, `imported ${20000 - recorded} event(s) from ${file} in ${Math.ceil((20000 - recorded) / 1000)} request(s)\n`);
    assert.equal(stored(d).map((e) => e.data.i), lines.map((_, i) => i));
  } finally {
    removeDir(path.dirname(file));
  }
}));

test.run();
