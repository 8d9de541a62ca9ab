import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../lib/log.js';
import type { ConditionValue } from '../daemon/conditions/read.js';
import { resolveBoltwood } from '../daemon/outputs/boltwood-config.js';
import { BoltwoodWriter } from '../daemon/outputs/boltwood-writer.js';
import { parseBoltwood } from './helpers/boltwood.js';
import { ManualClock } from './helpers/clock.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// 10,000 rewrites of the Boltwood file by the daemon's writer while several reader processes
// read it in a loop: every read is one whole line that was written (never torn, never empty,
// never a mix of two), and Since is the age given.

const WRITES = 10_000;
const READERS = 3;

// a reader: reads the file as fast as it can until `stop` appears, then prints each distinct text it read and how many reads
const READER = `
const fs = require('node:fs');
const [file, stop] = process.argv.slice(1);
const seen = new Map();
let reads = 0;
process.stdout.write('ready\\n');
while (!fs.existsSync(stop)) {
  const text = fs.readFileSync(file, 'latin1');
  reads++;
  seen.set(text, (seen.get(text) ?? 0) + 1);
}
process.stdout.write(JSON.stringify({ reads, texts: [...seen.keys()] }) + '\\n');
`;

function startReader(file: string, stop: string): { ready: Promise<void>; done: Promise<{ reads: number; texts: string[] }> } {
  const child = spawn(process.execPath, ['-e', READER, file, stop], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => { markReady = resolve; });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.startsWith('ready\n')) markReady();
  });
  const done = new Promise<{ reads: number; texts: string[] }>((resolve, reject) => child.once('exit', (code) => {
    if (code !== 0) reject(new Error(`reader exited ${code}`));
    else resolve(JSON.parse(out.slice('ready\n'.length)));
  }));
  return { ready, done };
}

test(`${WRITES} rewrites under ${READERS} concurrent readers: no torn or partial read`, async () => {
  // on tmpfs when there is one: the writer's fsync is then not what the test waits on (the machine is shared)
  const dir = fs.existsSync('/dev/shm') ? fs.mkdtempSync('/dev/shm/meridian-test-') : tempDir();
  try {
    const file = path.join(dir, 'clarity.txt');
    const stop = path.join(dir, 'stop');
    const clock = new ManualClock('2026-11-25T01:00:00.000Z');
    let i = 0;
    const value = (property: ConditionValue['property'], v: number, age: number): ConditionValue =>
      ({ property, type: 'weather', unit: 'degC', value: v, text: String(v), age_s: age, stale: false });
    const writer = new BoltwoodWriter({
      spec: resolveBoltwood({ path: file }, 't.toml')!, verdict: { current: () => ({ safe: i % 2 === 0, since: '2026-11-25T01:00:00.000Z', reasons: [] }) },
      // each write a different state: the temperature and the reading's age move with i
      conditions: () => [value('temperature', (i % 2000) / 10 - 100, (i % 500) + 0.4)],
      clock, zone: 'UTC', logger: silentLogger,
    });
    const written = new Set<string>();
    written.add(writer.writeNow()!.text);
    const readers = Array.from({ length: READERS }, () => startReader(file, stop));
    await Promise.all(readers.map((r) => r.ready));
    for (i = 1; i < WRITES; i++) {
      clock.advance(10);
      const line = writer.writeNow();
      assert.ok(line, `write ${i}`);
      written.add(line!.text);
      assert.is(line!.since, (i % 500), `Since of write ${i}`);
      // let the readers' reads land among the writes, not all after them
      if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    fs.writeFileSync(stop, '');
    const results = await Promise.all(readers.map((r) => r.done));
    assert.is(written.size, WRITES, 'every write is a different line');
    for (const { reads, texts } of results) {
      assert.ok(reads > 0);
      for (const text of texts) {
        assert.ok(parseBoltwood(text), `a read that is not one whole line: ${JSON.stringify(text)}`);
        assert.ok(written.has(text), `a read that was never written: ${JSON.stringify(text)}`);
      }
    }
    const distinct = new Set(results.flatMap((r) => r.texts)).size;
    assert.ok(distinct > 10, `the readers saw the file change while it was rewritten (${distinct} distinct lines)`);
    assert.equal(fs.readdirSync(dir).sort(), ['clarity.txt', 'stop']);
  } finally {
    removeDir(dir);
  }
});

test.run();
