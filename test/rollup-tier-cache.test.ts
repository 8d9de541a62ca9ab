import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BucketText } from '../daemon/rollup/bucket-text.js';
import { TierCache } from '../daemon/rollup/tier-cache.js';
import { readBuckets } from '../daemon/rollup/tier-file.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The tier cache (daemon/rollup/tier-cache.ts) answers what reading the file answers, through
// every state a tier file goes through: missing, appended to (a whole line, a torn one, the rest
// of it), replaced by a rebuild with a file of the same length, cut shorter, holding a damaged
// line, removed. Each step: the cache against readBuckets over several spans, and the starts.

const MIN = 60_000;
const line = (minute: number, value: string) =>
  `{"s":${minute * MIN},"e":${(minute + 1) * MIN},"f":{"data.t":{"first":${value},"last":${value},"min":${value},"max":${value},"count":1,"mean":${Number(value)},"twmean":null,"gap_s":60}}}\n`;
const plain = (buckets: BucketText[]) => buckets.map((b) => [b.s / MIN, Object.fromEntries(b.fields)]);
const SPANS: [number, number][] = [[0, 100 * MIN], [2 * MIN, 4 * MIN], [2.5 * MIN, 3.5 * MIN], [50 * MIN, 60 * MIN], [-5 * MIN, 0]];

type Step = [what: string, change: (file: string) => void, starts: number[]];
const STEPS: Step[] = [
  ['missing', () => undefined, []],
  ['three lines', (f) => fs.writeFileSync(f, line(1, '1.50') + line(2, '2') + line(3, '3.0')), [1, 2, 3]],
  ['two appended', (f) => fs.appendFileSync(f, line(4, '4') + line(5, '5')), [1, 2, 3, 4, 5]],
  ['a torn line appended (left out until whole)', (f) => fs.appendFileSync(f, line(6, '6').slice(0, 30)), [1, 2, 3, 4, 5]],
  ['the rest of it', (f) => fs.appendFileSync(f, line(6, '6').slice(30)), [1, 2, 3, 4, 5, 6]],
  ['replaced by a rebuild: the same length, another value', (f) => {
    const text = fs.readFileSync(f, 'utf8');
    fs.writeFileSync(`${f}.new`, text.replace(line(1, '1.50'), line(1, '9.50')));
    fs.renameSync(`${f}.new`, f);
  }, [1, 2, 3, 4, 5, 6]],
  ['cut shorter', (f) => fs.truncateSync(f, line(1, '9.50').length + line(2, '2').length), [1, 2]],
  ['a damaged line among whole ones', (f) => fs.appendFileSync(f, `{"s":180000,"e":240000,"f":{"data.t":{"first":oops}}}\n${line(8, '8')}`), [1, 2, 8]],
  ['removed', (f) => fs.rmSync(f), []],
];

test('the tier cache answers what the file holds, through every state of the file', async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'weather.ndjson');
    const cache = new TierCache();
    for (const [what, change, starts] of STEPS) {
      change(file);
      const all = await cache.read(file, -Infinity, Infinity);
      assert.equal(all.map((b) => b.s / MIN), starts, what);
      for (const [from, to] of SPANS) {
        assert.equal(plain(await cache.read(file, from, to)), plain(await readBuckets(file, from, to)), `${what}: [${from / MIN}, ${to / MIN})`);
      }
    }
  } finally {
    removeDir(dir);
  }
});

test('queries of one file at once parse its lines once (no bucket twice)', async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'weather.ndjson');
    fs.writeFileSync(file, Array.from({ length: 2000 }, (_, i) => line(i, String(i))).join(''));
    const cache = new TierCache();
    const answers = await Promise.all(Array.from({ length: 4 }, () => cache.read(file, -Infinity, Infinity)));
    fs.appendFileSync(file, line(2000, '1'));
    answers.push(...await Promise.all(Array.from({ length: 4 }, () => cache.read(file, -Infinity, Infinity))));
    assert.equal(answers.map((a) => a.length), [2000, 2000, 2000, 2000, 2001, 2001, 2001, 2001]);
  } finally {
    removeDir(dir);
  }
});

test.run();
