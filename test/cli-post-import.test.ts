import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CliIo } from '../cli/io.js';
import { progressBar } from '../cli/progress.js';
import { cli } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { readLines, tempDir, removeDir } from './helpers/tmp.js';

// `telemetry post` and `telemetry import` as child processes against a real daemon.

const T0 = '2026-03-17T20:05:48.955Z';
const SITE_FILE = 'site_20260317.ndjson';

const withDaemon = (fn: (d: TestDaemon, run: (...args: string[]) => ReturnType<typeof cli>) => Promise<void>) =>
  withTestDaemon({ clock: new ManualClock(T0), env: { TZ: 'UTC' } }, (d) =>
    fn(d, (...args) => cli([...args, '--host', '127.0.0.1', '--port', String(d.port)])));
const siteLines = (d: TestDaemon) => readLines(path.join(d.siteDir, SITE_FILE)) as { seq: number; type: string; data: unknown; meta: object }[];

/** Write an NDJSON file of `lines` in a fresh directory; returns its path. */
function ndjson(lines: string[]): string {
  const file = path.join(tempDir(), 'events.ndjson');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

test('post prints the envelope as stored; --meta and --not-current', () => withDaemon(async (d, run) => {
  const first = await run('post', 'weather', '--data', '{"temp_c":-3.5}', '--meta', '{"station":"ws1"}');
  assert.equal([first.code, first.stderr], [0, '']);
  const line = '{"seq":1,"ts":"2026-03-17T20:05:48.955Z","type":"weather","data":{"temp_c":-3.5},"meta":{"station":"ws1"}}';
  assert.is(first.stdout, `${line}\n`);
  const hidden = await run('post', 'weather', '--data', 'null', '--not-current');
  assert.is(hidden.code, 0);
  assert.equal(siteLines(d).map((e) => e.data), [{ temp_c: -3.5 }, null]);
  assert.equal((await cli(['current', 'weather', '--json', '--port', String(d.port), '--host', '127.0.0.1'])).stdout, `${line}\n`);
}));

test('post --max-age: the reading carries its own limit (meta.max_age_s), which /current reports', () => withDaemon(async (d, run) => {
  const posted = await run('post', 'power', '--data', '230', '--max-age', '90');
  assert.equal([posted.code, posted.stderr], [0, '']);
  assert.is(posted.stdout, '{"seq":1,"ts":"2026-03-17T20:05:48.955Z","type":"power","data":230,"meta":{"max_age_s":90}}\n');
  assert.equal((await request(d.url, '/current?freshness=true')).json.freshness, { power: { age_s: 0, max_age_s: 90, max_age_from: 'reading', stale: false } });
}));

test('post: usage mistakes are exit 2, a refused event exit 1, each with one line', () => withDaemon(async (_d, run) => {
  const cases: [string[], number, string][] = [
    [['post', 'weather'], 2, 'telemetry: --data is required (a JSON value: --data \'{"temp_c":-3.5}\', --data null) (see "telemetry post --help")\n'],
    [['post', 'weather', '--data', 'open'], 2, 'telemetry: --data must be JSON (strings in double quotes: \'"open"\'); got "open" (see "telemetry post --help")\n'],
    [['post', 'weather', '--data', '1', '--meta', '[1]'], 2, 'telemetry: --meta must be a JSON object; got "[1]" (see "telemetry post --help")\n'],
    [['post', 'power', '--data', '1', '--max-age', '0'], 2, 'telemetry: --max-age must be a number of seconds of at least 0.001 (such as 60 or 0.5); got "0" (see "telemetry post --help")\n'],
    [['post', '', '--data', '1'], 1, 'telemetry: type must not be empty (INVALID_BODY)\n'],
  ];
  for (const [args, code, stderr] of cases) {
    const got = await run(...args);
    assert.equal([got.code, got.stderr, got.stdout], [code, stderr, ''], args.join(' '));
  }
}));

test('import: batches of --batch-size, blank lines skipped, a summary on stdout', () => withDaemon(async (d, run) => {
  const lines = Array.from({ length: 2500 }, (_, i) => JSON.stringify({ type: `t${i % 7}`, data: i }));
  lines.splice(10, 0, '', '   ');
  const file = ndjson(lines);
  try {
    const got = await run('import', file, '--batch-size', '1000');
    assert.equal([got.code, got.stderr], [0, '']);
    assert.is(got.stdout, `imported 2500 event(s) from ${file} in 3 request(s)\n`);
    const stored = siteLines(d);
    assert.equal(stored.map((e) => e.seq), Array.from({ length: 2500 }, (_, i) => i + 1));
    assert.equal(stored.map((e) => e.data), Array.from({ length: 2500 }, (_, i) => i));
  } finally {
    removeDir(path.dirname(file));
  }
}));

test('import: a batch with invalid lines is refused whole and the import stops; --partial records the rest', () => withDaemon(async (d, run) => {
  const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ type: 'a', data: i }));
  lines[3] = '{"type":"a"}';
  lines[4] = '{oops';
  const file = ndjson(lines);
  try {
    const atomic = await run('import', file, '--batch-size', '2');
    assert.is(atomic.code, 1);
    assert.is(atomic.stdout, '');
    assert.is(atomic.stderr, 'telemetry: line 4: data is required (null counts as given). (INVALID_BODY)\n'
      + 'the batch of lines 3-4 was refused (nothing of it recorded); 2 event(s) before it were recorded. '
      + `Fix the lines above and go on with: telemetry import ${file} --start-line 3; or use --partial to record the valid ones.\n`);
    assert.equal(siteLines(d).map((e) => e.data), [0, 1]);

    const partial = await run('import', file, '--batch-size', '2', '--partial');
    assert.is(partial.code, 1);
    assert.is(partial.stdout, `imported 4 event(s) from ${file} in 3 request(s); 2 invalid line(s) not recorded\n`);
    assert.match(partial.stderr, /^telemetry: line 4: data is required \(null counts as given\)\. \(INVALID_BODY\)\nline 5: The line is not valid JSON: .+\. \(MALFORMED_JSON\)\n$/);
    assert.equal(siteLines(d).map((e) => e.data), [0, 1, 0, 1, 2, 5]);
  } finally {
    removeDir(path.dirname(file));
  }
}));

test('import: a line that is not UTF-8 is never sent respelled: the batch stops, or with --partial the line is listed', () => withDaemon(async (d, run) => {
  const dir = tempDir();
  const file = path.join(dir, 'events.ndjson');
  fs.writeFileSync(file, Buffer.concat([Buffer.from('{"type":"a","data":"é"}\n{"type":"a","data":"'), Buffer.from([0xe9]),
    Buffer.from('"}\n{"type":"a","data":1.0}\n{"type":"a","data":"\\u00e9"}\n')]));
  try {
    const atomic = await run('import', file, '--batch-size', '2');
    assert.equal([atomic.code, atomic.stdout, atomic.stderr], [1, '', 'telemetry: line 2: the line is not valid UTF-8 text (INVALID_ENCODING)\n'
      + 'the batch of lines 1-3 was not sent (nothing of it recorded); 0 event(s) before it were recorded. '
      + `Fix the lines above and go on with: telemetry import ${file} --start-line 1; or use --partial to record the valid ones.\n`]);
    assert.is(fs.existsSync(path.join(d.siteDir, SITE_FILE)), false);
    const partial = await run('import', file, '--batch-size', '2', '--partial');
    assert.equal([partial.code, partial.stdout, partial.stderr], [1, `imported 3 event(s) from ${file} in 2 request(s); 1 invalid line(s) not recorded\n`,
      'telemetry: line 2: the line is not valid UTF-8 text (INVALID_ENCODING)\n']);
    assert.is(fs.readFileSync(path.join(d.siteDir, SITE_FILE), 'utf8'), [
      `{"seq":1,"ts":"${T0}","type":"a","data":"é","meta":{}}`, `{"seq":2,"ts":"${T0}","type":"a","data":1.0,"meta":{}}`,
      `{"seq":3,"ts":"${T0}","type":"a","data":"\\u00e9","meta":{}}`, ''].join('\n'));
  } finally {
    removeDir(dir);
  }
}));

test('import: a missing file is exit 1; a bad --batch-size exit 2', async () => {
  const missing = await cli(['import', '/nonexistent/x.ndjson', '--port', '1']);
  assert.equal([missing.code, missing.stderr], [1, 'telemetry: cannot read /nonexistent/x.ndjson (ENOENT)\n']);
  const bad = await cli(['import', '/nonexistent/x.ndjson', '--batch-size', '20000']);
  assert.equal([bad.code, bad.stderr], [2, 'telemetry: --batch-size must be a whole number from 1 to 10000; got "20000" (see "telemetry import --help")\n']);
});

test('the progress bar redraws one line on a terminal and clears it; nothing when stderr is not one', () => {
  const drawn: string[] = [];
  const io = { stderrIsTTY: true, err: (t: string) => drawn.push(t) } as unknown as CliIo;
  const bar = progressBar(io, 'importing f');
  bar.update(0.5, '10 event(s)');
  bar.update(1, '20 event(s)');
  bar.done();
  assert.equal(drawn, [
    '\r\u001b[Kimporting f [############------------] 50% 10 event(s)',
    '\r\u001b[Kimporting f [########################] 100% 20 event(s)',
    '\r\u001b[K',
  ]);
  const quiet: string[] = [];
  const none = progressBar({ stderrIsTTY: false, err: (t: string) => quiet.push(t) } as unknown as CliIo, 'x');
  none.update(0.5, 'y');
  none.done();
  assert.equal(quiet, []);
});

test.run();
