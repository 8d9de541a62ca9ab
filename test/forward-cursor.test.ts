import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CursorWriter, loadCursor, type CursorFile } from '../daemon/forward/cursor-file.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The cursor on disk: written whole now and then, in place in between; the newer of the two
// that reads whole is the cursor; without the cursor file there is none.

const body = (generation: number, offset: number): CursorFile => ({
  format: 1, sink: 'peer', generation, streams: { site: { file: '/s/site_20260317.ndjson', offset, seq: offset / 10 } },
});

test('loadCursor: the newer of the cursor file and the next file, if whole; none without the cursor file', () => {
  const rows: Array<[string, string | undefined, string | undefined, number | undefined | 'error']> = [
    ['only the cursor file', JSON.stringify(body(3, 30)), undefined, 30],
    ['the next file newer', JSON.stringify(body(3, 30)), JSON.stringify(body(4, 40)), 40],
    ['the next file older (the cursor file written whole after it)', JSON.stringify(body(5, 50)), JSON.stringify(body(4, 40)), 50],
    ['the next file torn (a power cut)', JSON.stringify(body(3, 30)), JSON.stringify(body(4, 40)).slice(0, 25), 30],
    ['the next file padded with spaces', JSON.stringify(body(3, 30)), `${JSON.stringify(body(4, 40))}      `, 40],
    ['the next file of another sink', JSON.stringify(body(3, 30)), JSON.stringify({ ...body(4, 40), sink: 'other' }), 30],
    ['no cursor file: none, whatever the next file says', undefined, JSON.stringify(body(9, 90)), undefined],
    ['a cursor file that is no JSON', '{"format":1,', undefined, 'error'],
  ];
  for (const [name, whole, next, expected] of rows) {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'peer.cursor.json');
      if (whole !== undefined) fs.writeFileSync(file, whole);
      if (next !== undefined) fs.writeFileSync(`${file}.next`, next);
      const got = loadCursor(file);
      const offset = got instanceof Error ? 'error' : got?.streams.site?.offset;
      assert.is(offset, expected, name);
      if (whole === undefined) assert.is(fs.existsSync(`${file}.next`), false, `${name}: the next file left over is removed`);
    } finally {
      removeDir(dir);
    }
  }
});

test('CursorWriter: whole at first and once the interval passed, in place (padded, one file) in between', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'peer.cursor.json');
  const writer = new CursorWriter(file, { wholeEveryMs: 1000, fsync: true });
  try {
    await writer.write(body(1, 1000), 0);
    assert.equal([loadCursor(file), fs.existsSync(`${file}.next`)], [body(1, 1000), false], 'the first write is whole');
    await writer.write(body(2, 2000), 10);
    await writer.write(body(3, 30), 20);
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')), body(1, 1000), 'the cursor file is left as it was');
    const next = fs.readFileSync(`${file}.next`, 'utf8');
    assert.is(next, `${JSON.stringify(body(3, 30))}${' '.repeat(JSON.stringify(body(2, 2000)).length - JSON.stringify(body(3, 30)).length)}`);
    assert.equal(loadCursor(file), body(3, 30));
    await writer.write(body(4, 40), 1000);
    assert.equal([JSON.parse(fs.readFileSync(file, 'utf8')), loadCursor(file)], [body(4, 40), body(4, 40)], 'whole again after the interval');
    assert.equal(fs.readdirSync(dir).sort(), ['peer.cursor.json', 'peer.cursor.json.next'], 'no temp file left');
  } finally {
    await writer.close();
    removeDir(dir);
  }
});

test.run();
