import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalTs, lineHead } from '../daemon/ndjson/head.js';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import { siteDayOf } from '../daemon/ndjson/names.js';
import { LineSplitter } from '../daemon/ndjson/splitter.js';
import { HeldFile } from '../daemon/ndjson/held.js';
import { readTail } from '../daemon/ndjson/tail.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The ground floor of the recorded files (daemon/ndjson/): the one head parser, names, the
// line splitter and the tail forwarders read, plain and gzip, as tables.

// [name, line, head]
const HEADS: [string, string, ReturnType<typeof lineHead>][] = [
  ['Meridian line', '{"seq":7,"ts":"2026-03-17T20:00:00.000Z","type":"weather","data":1,"meta":{}}', { seq: 7, ts: '2026-03-17T20:00:00.000Z', type: 'weather' }],
  ['escaped type', '{"seq":8,"ts":"t","type":"a\\"b\\\\","data":1}', { seq: 8, ts: 't', type: 'a"b\\' }],
  ['original service line (stream key first)', '{"stream":"site","seq":3,"type":"dome","ts":"2026-03-17T20:00:00+00:00","data":null}', { seq: 3, ts: '2026-03-17T20:00:00+00:00', type: 'dome' }],
  ['no seq', '{"ts":"t","type":"a"}', undefined],
  ['seq not an integer', '{"seq":1.5,"ts":"t","type":"a"}', undefined],
  // the head is read off the text: whole lines are what writers write, start-up validates them (parseEnvelope)
  ['a Meridian head before a broken rest', '{"seq":1,"ts":"t","type":"a",', { seq: 1, ts: 't', type: 'a' }],
  ['not JSON', '{"seq":1,"ts":"t","typ', undefined],
  ['empty', '', undefined],
];

for (const [name, line, head] of HEADS) {
  test(`lineHead: ${name}`, () => assert.equal(lineHead(line), head));
}

test('canonicalTs and siteDayOf', () => {
  assert.equal([canonicalTs('2026-03-17T21:00:00+01:00'), canonicalTs('2026-03-17T20:00:00.000Z'), canonicalTs('nonsense')],
    ['2026-03-17T20:00:00.000Z', '2026-03-17T20:00:00.000Z', '']);
  assert.equal(['/x/site_20260317.ndjson', 'site_20260317.ndjson.gz', '/x/014/telemetry.ndjson', 'site_2026.ndjson'].map(siteDayOf),
    ['20260317', '20260317', undefined, undefined]);
});

test('LineSplitter: lines across chunks, offsets, empty lines skipped, torn tail held', () => {
  const got: [string, number, number][] = [];
  const splitter = new LineSplitter(100, (line, start, end) => got.push([line, start, end]));
  for (const chunk of ['ab', 'c\n\nde', 'f\ngh']) splitter.push(Buffer.from(chunk));
  assert.equal(got, [['abc', 100, 104], ['def', 105, 109]]);
  assert.equal([splitter.end, splitter.tornBytes], [109, 2]);
});

test('readTail: the same lines and offsets from a plain file, its indexed gzip and an older single-member gzip; a torn last line is damage only when compressed', async () => {
  const dir = tempDir();
  const text = ['{"seq":1}', '{"seq":2}', '{"seq":3}'].map((l) => `${l}\n`).join('') + '{"seq":4';
  const files = {
    plain: path.join(dir, 'site_20260301.ndjson'),
    members: path.join(dir, 'site_20260302.ndjson.gz'),
    single: path.join(dir, 'site_20260303.ndjson.gz'),
  };
  fs.writeFileSync(files.plain, text);
  fs.writeFileSync(files.members, Buffer.concat([encodeMember(Buffer.from('{"seq":1}\n{"seq":2}\n')), encodeMember(Buffer.from('{"seq":3}\n{"seq":4'))]));
  fs.writeFileSync(files.single, zlib.gzipSync(text));
  try {
    for (const [kind, file] of Object.entries(files)) {
      // fewer bytes than a line: the first whole line still comes
      const first = await readTail(file, 0, { lines: 2, bytes: 4 });
      assert.equal([first.lines, first.end, first.atEnd], [[{ line: '{"seq":1}', end: 10 }], 10, false], kind);
      const second = await readTail(file, 10, { lines: 1, bytes: 1024 });
      assert.equal([second.lines, second.end, second.atEnd], [[{ line: '{"seq":2}', end: 20 }], 20, false], kind);
      const rest = await readTail(file, 20, { lines: 10, bytes: 1024 });
      // a torn last line: one still being written in a plain file, damage in a compressed one (never cut, never dropped silently)
      const torn = { plain: [], members: ['its member at byte 49 ends inside a line (its last 8 bytes form no whole line)'],
        single: ['its member at byte 0 ends inside a line (its last 8 bytes form no whole line)'] }[kind];
      assert.equal([rest.lines, rest.end, rest.atEnd, rest.damage], [[{ line: '{"seq":3}', end: 30 }], 30, true, torn], kind);
    }
  } finally {
    removeDir(dir);
  }
});

test('readTail with a held file: kept open for the bytes it knew, opened afresh at its end (appended and replaced files)', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'site_20260301.ndjson');
  const held = new HeldFile();
  fs.writeFileSync(file, '{"seq":1}\n{"seq":2}\n{"seq":3'); // 28 bytes, the third line still being written
  try {
    const one = await readTail(file, 0, { lines: 1, bytes: 10 }, undefined, held);
    // the file replaced: the held handle still reads the bytes it knew (the same bytes, in an append-only file)
    fs.renameSync(file, `${file}.old`);
    fs.writeFileSync(file, '{"seq":1}\n{"seq":9}\n{"seq":3');
    const two = await readTail(file, 10, { lines: 1, bytes: 10 }, undefined, held);
    fs.appendFileSync(file, '}\n{"seq":4}\n');
    // the line after the held handle's end: the file is opened afresh and its line seen, not an end
    const three = await readTail(file, 20, { lines: 10, bytes: 5 }, undefined, held);
    const rows = [[one, '{"seq":1}', 10, false], [two, '{"seq":2}', 20, false], [three, '{"seq":3}', 30, false]] as const;
    for (const [got, line, end, atEnd] of rows) assert.equal([got.lines, got.end, got.atEnd], [[{ line, end }], end, atEnd], line);
    const rest = await readTail(file, 30, { lines: 10, bytes: 1024 }, undefined, held);
    assert.equal([rest.lines, rest.end, rest.atEnd], [[{ line: '{"seq":4}', end: 40 }], 40, true]);
    await held.close();
  } finally {
    removeDir(dir);
  }
});

test.run();
