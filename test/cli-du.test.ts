import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import { cli } from './helpers/cli.js';
import { startTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// `telemetry du`: the space per site day and per run, from the site directory.

test('du lists each day and run file with its size, gzip marked, and the totals', async () => {
  const dir = tempDir();
  try {
    fs.writeFileSync(path.join(dir, 'site_20260316.ndjson'), 'x'.repeat(2048));
    fs.writeFileSync(path.join(dir, 'site_20260310.ndjson.gz'), zlib.gzipSync(`${'y'.repeat(99)}\n`));
    fs.mkdirSync(path.join(dir, '001'));
    fs.writeFileSync(path.join(dir, '001', 'telemetry.ndjson'), 'z'.repeat(10));
    fs.mkdirSync(path.join(dir, 'empty-run'));
    fs.mkdirSync(path.join(dir, '.meridian'));
    const gz = fs.statSync(path.join(dir, 'site_20260310.ndjson.gz')).size;
    const text = await cli(['du', '--site-dir', dir]);
    assert.equal([text.code, text.stderr], [0, '']);
    assert.is(text.stdout, [
      `day  20260310  ${`${gz} B`.padStart(7)}  gzip`,
      'day  20260316  2.0 KiB',
      `run  001       ${'10 B'.padStart(7)}`,
      `total ${(2048 + gz + 10) >= 1024 ? `${((2048 + gz + 10) / 1024).toFixed(1)} KiB` : ''} in ${dir} (2 day(s) ${((2048 + gz) / 1024).toFixed(1)} KiB, 1 run(s) 10 B)`,
      '',
    ].join('\n'));
    const json = JSON.parse((await cli(['du', '--site-dir', dir, '--json'])).stdout);
    assert.equal(json, {
      site_dir: dir,
      files: [
        { kind: 'day', name: '20260310', file: path.join(dir, 'site_20260310.ndjson.gz'), bytes: gz, compressed: true, state: 'ok', reason: null },
        { kind: 'day', name: '20260316', file: path.join(dir, 'site_20260316.ndjson'), bytes: 2048, compressed: false, state: 'ok', reason: null },
        { kind: 'run', name: '001', file: path.join(dir, '001', 'telemetry.ndjson'), bytes: 10, compressed: false, state: 'ok', reason: null },
      ],
      total_bytes: 2048 + gz + 10,
    });
  } finally {
    removeDir(dir);
  }
});

const line = (seq: number) => `{"seq":${seq},"ts":"2026-03-16T13:00:00.000Z","type":"w","data":${seq},"meta":{}}\n`;

const TEMP = "a temp file left by an interrupted compression or restore: no reader takes it (the next housekeeping pass removes a compression's)";

const UNKNOWN = "its name is no site day file's (site_<YYYYMMDD>.ndjson of a calendar date): the daemon neither reads, forwards, compresses nor deletes it";

// [file (under the site dir), content, kind, name, the state column ('' when ok)]
const STATES: [string, Buffer, string, string, string][] = [
  ['site_20260310.ndjson.gz', encodeMember(Buffer.from(line(1))), 'day', '20260310', ''],
  ['site_20260311.ndjson.gz', Buffer.alloc(0), 'day', '20260311', 'damaged: it is empty (0 bytes), not a gzip file'],
  ['site_20260312.ndjson', Buffer.from(line(2)), 'day', '20260312', ''],
  ['site_20260312.ndjson.gz', encodeMember(Buffer.from(line(2))), 'day', '20260312',
    'duplicate: the plain file beside it is the one read (a compression was interrupted; the next housekeeping pass keeps one of the two)'],
  ['site_20260313.ndjson', Buffer.alloc(0), 'day', '20260313', 'empty: it holds no line (0 bytes)'],
  ['site_20260314.ndjson.gz', encodeMember(Buffer.from(line(3).repeat(50))).subarray(0, 40), 'day', '20260314',
    'damaged: its member at byte 0 is cut short (truncated)'],
  ['site_20260315.ndjson.gz', Buffer.from('not gzip at all\n'), 'day', '20260315', 'damaged: bytes 0-16 of it hold no gzip member that decompresses'],
  ['site_20260312.ndjson.gz.tmp', encodeMember(Buffer.from(line(2))).subarray(0, 20), 'day', '20260312', `temp: ${TEMP}`],
  ['001/telemetry.ndjson', Buffer.from(line(1)), 'run', '001', ''],
  ['001/telemetry.ndjson.gz', encodeMember(Buffer.from(line(1))), 'run', '001',
    'duplicate: the plain file beside it is the one read (a compression was interrupted; the next housekeeping pass keeps one of the two)'],
  ['001/telemetry.ndjson.restore.tmp', Buffer.from(line(1).slice(0, 9)), 'run', '001', `temp: ${TEMP}`],
  // a run directory only runs.json knows (three levels down), and one of the original service's (runs/<id>/)
  ['deep/a/b/n1/telemetry.ndjson', Buffer.from(line(4)), 'run', 'deep/a/b/n1', ''],
  ['runs/PAN001_seq1/telemetry.ndjson.gz', encodeMember(Buffer.from(line(5))), 'run', 'runs/PAN001_seq1', ''],
  ['site_20260230.ndjson', Buffer.from(line(7)), 'unknown', 'site_20260230.ndjson', `unknown: ${UNKNOWN}`],
  ['site_20261301.ndjson', Buffer.from(line(9)), 'unknown', 'site_20261301.ndjson', `unknown: ${UNKNOWN}`],
];

test('du aligns its columns by display width: a run named in wide characters (2 columns each)', async () => {
  const dir = tempDir();
  try {
    for (const [name, bytes] of [['観測01', 10], ['run-a', 2048]] as const) {
      fs.mkdirSync(path.join(dir, name));
      fs.writeFileSync(path.join(dir, name, 'telemetry.ndjson'), 'z'.repeat(bytes));
    }
    const text = await cli(['du', '--site-dir', dir]);
    assert.equal([text.code, text.stderr], [0, '']);
    assert.equal(text.stdout.split('\n').slice(0, 2), [
      'run  run-a   2.0 KiB',
      'run  観測01     10 B',
    ]);
  } finally {
    removeDir(dir);
  }
});

test('du lists every file of a day or run (at any depth it knows) and marks what is damaged, empty, a duplicate, a temp file or no day; damage is named on stderr, exit 1', async () => {
  const dir = tempDir();
  try {
    for (const [file, content] of STATES) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), content);
    }
    fs.mkdirSync(path.join(dir, '.meridian'));
    fs.writeFileSync(path.join(dir, '.meridian', 'runs.json'), JSON.stringify({ format: 1, runs: [{ run_id: 'n1', run_dir: 'deep/a/b/n1', started_at: '2026-03-16T13:00:00.000Z' }] }));
    const rows = STATES.map(([file, content, kind, name, state]) => [kind, name, `${content.length} B`, file.endsWith('.gz') ? 'gzip' : '', state]);
    const width = (i: number) => Math.max(...rows.map((r) => r[i]!.length));
    const total = (kind: string) => STATES.filter((r) => r[2] === kind).reduce((sum, r) => sum + r[1].length, 0);
    const all = total('day') + total('run') + total('unknown');
    const text = await cli(['du', '--site-dir', dir]);
    assert.equal(text.stdout, [
      ...rows.map((r) => `${r[0]!.padEnd(width(0))}  ${r[1]!.padEnd(width(1))}  ${r[2]!.padStart(width(2))}  ${r[3]!.padEnd(width(3))}  ${r[4]}`.trimEnd()),
      `total ${all} B in ${dir} (6 day(s) ${total('day')} B, 3 run(s) ${total('run')} B, 2 unknown file(s) ${total('unknown')} B)`,
      '',
    ].join('\n'));
    assert.equal([text.code, text.stderr], [1, [
      `telemetry: damaged: ${path.join(dir, 'site_20260311.ndjson.gz')}: it is empty (0 bytes), not a gzip file`,
      `telemetry: damaged: ${path.join(dir, 'site_20260314.ndjson.gz')}: its member at byte 0 is cut short (truncated)`,
      `telemetry: damaged: ${path.join(dir, 'site_20260315.ndjson.gz')}: bytes 0-16 of it hold no gzip member that decompresses`,
      '',
    ].join('\n')]);
    const json = await cli(['du', '--site-dir', dir, '--json']);
    assert.is(json.code, 1);
    assert.equal(JSON.parse(json.stdout).files.map((f: Record<string, unknown>) => [f.kind, f.name, f.file, f.bytes, f.compressed, f.state, f.reason]),
      STATES.map(([file, content, kind, name, state]) => [kind, name, path.join(dir, file), content.length, file.endsWith('.gz'),
        state === '' ? 'ok' : state.slice(0, state.indexOf(':')), state === '' ? null : state.slice(state.indexOf(':') + 2)]));
  } finally {
    removeDir(dir);
  }
});

test('a name that is no date (site_20261301.ndjson) is left alone by the daemon as by du: not read, no seq taken from it, not in history', async () => {
  const dir = tempDir();
  try {
    fs.writeFileSync(path.join(dir, 'site_20260316.ndjson'), line(1) + line(2));
    fs.writeFileSync(path.join(dir, 'site_20261301.ndjson'), line(50));
    const d = await startTestDaemon({ siteDir: dir, flags: { retain: '1d' } });
    try {
      assert.is((await postEvent(d.url, { type: 'w', data: 3 })).json.seq, 3);
      assert.equal((await request(d.url, '/history')).json.events.map((e: { seq: number }) => e.seq), [1, 2, 3]);
      const pass = await d.daemon.housekeeping!.runOnce();
      assert.equal([pass.deleted, pass.compressed], [[], []]);
      assert.ok(fs.existsSync(path.join(dir, 'site_20261301.ndjson')));
    } finally {
      await d.close();
    }
  } finally {
    removeDir(dir);
  }
});

test.run();
