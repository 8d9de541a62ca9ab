import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// `telemetry du`: the space per site day and per run, from the site directory.

test('du lists each day and run file with its size, gzip marked, and the totals', async () => {
  const dir = tempDir();
  try {
    fs.writeFileSync(path.join(dir, 'site_20260316.ndjson'), 'x'.repeat(2048));
    fs.writeFileSync(path.join(dir, 'site_20260310.ndjson.gz'), zlib.gzipSync('y'.repeat(100)));
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
        { kind: 'day', name: '20260310', file: path.join(dir, 'site_20260310.ndjson.gz'), bytes: gz, compressed: true },
        { kind: 'day', name: '20260316', file: path.join(dir, 'site_20260316.ndjson'), bytes: 2048, compressed: false },
        { kind: 'run', name: '001', file: path.join(dir, '001', 'telemetry.ndjson'), bytes: 10, compressed: false },
      ],
      total_bytes: 2048 + gz + 10,
    });
  } finally {
    removeDir(dir);
  }
});

test.run();
