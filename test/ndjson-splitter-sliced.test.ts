import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineSplitter } from '../daemon/ndjson/splitter.js';

// The splitter's sliced mode (ASCII chunks decoded once, lines as slices: the night report's
// reads) cuts exactly the lines and byte offsets of the plain mode, whatever the chunk size:
// lines across chunks, non-ASCII lines (offsets in bytes), empty lines, a torn tail.

const TEXT = '{"a":1}\n\n{"b":"é"}\n{"c":"温度"}\nplain ascii line\n\n{"d":[1,2,3]}\ntorn';
const BYTES = Buffer.from(TEXT);

function cut(sliced: boolean, size: number): [string[], [number, number][], number, number] {
  const lines: string[] = [];
  const offsets: [number, number][] = [];
  const splitter = new LineSplitter(100, (line, start, end) => { lines.push(line); offsets.push([start, end]); }, sliced);
  for (let at = 0; at < BYTES.length; at += size) splitter.push(BYTES.subarray(at, at + size));
  return [lines, offsets, splitter.end, splitter.tornBytes];
}

test('sliced and plain modes give the same lines and offsets for every chunk size', () => {
  const expected: ReturnType<typeof cut> = [
    ['{"a":1}', '{"b":"é"}', '{"c":"温度"}', 'plain ascii line', '{"d":[1,2,3]}'],
    [[100, 108], [109, 120], [120, 135], [135, 152], [153, 167]],
    167, 4,
  ];
  for (let size = 1; size <= BYTES.length; size++) {
    assert.equal(cut(true, size), expected, `sliced, chunks of ${size}`);
    assert.equal(cut(false, size), expected, `plain, chunks of ${size}`);
  }
});

test.run();
