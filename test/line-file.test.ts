import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Durability } from '../daemon/storage/durability.js';
import { LineFile } from '../daemon/storage/line-file.js';
import { silentLogger } from '../lib/log.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Group commit on a real file: which sync() calls share a round (one fdatasync), which start
// one, and that closing a file while it syncs loses nothing.

function withFile(fn: (f: LineFile, file: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = tempDir();
    const file = path.join(dir, 'telemetry.ndjson');
    const f = LineFile.open(file);
    try {
      await fn(f, file);
    } finally {
      f.close();
      removeDir(dir);
    }
  };
}

test('nothing written: sync() starts no round', withFile(async (f) => {
  await f.sync();
  assert.is(f.rounds, 0);
}));

test('callers with nothing new since a round started share it; once synced, no more rounds', withFile(async (f) => {
  f.append('{"seq":1}\n');
  const first = f.sync();
  const second = f.sync();
  assert.is(second, first, 'the same round');
  await Promise.all([first, second]);
  assert.is(f.rounds, 1);
  await f.sync();
  assert.is(f.rounds, 1, 'everything was synced already');
}));

test('lines written during a round start a second one; past two running, one round is queued and covers later lines too', withFile(async (f) => {
  f.append('{"seq":1}\n');
  const a = f.sync();
  f.append('{"seq":2}\n');
  const b = f.sync();
  assert.is.not(b, a);
  f.append('{"seq":3}\n');
  const c = f.sync();
  f.append('{"seq":4}\n');
  const d = f.sync();
  assert.is(d, c, 'seq 4 joins the queued round, which has not started yet');
  assert.is(f.rounds, 3);
  await Promise.all([a, b, c, d]);
  await f.sync();
  assert.is(f.rounds, 3, 'the queued round covered seq 4');
}));

test('closing while rounds run and one is queued: every sync resolves, the lines are whole', withFile(async (f, file) => {
  f.append('{"seq":1}\n');
  const a = f.sync();
  f.append('{"seq":2}\n');
  const b = f.sync();
  f.append('{"seq":3}\n');
  const c = f.sync();
  f.syncNow(); // what a target does before closing
  f.close();
  await Promise.all([a, b, c]);
  assert.is(fs.readFileSync(file, 'utf8'), '{"seq":1}\n{"seq":2}\n{"seq":3}\n');
}));

test('closed without a sync while a round is queued: the queued round says so', withFile(async (f) => {
  f.append('{"seq":1}\n');
  const a = f.sync();
  f.append('{"seq":2}\n');
  const b = f.sync();
  f.append('{"seq":3}\n');
  const c = f.sync().then(() => 'resolved', (e: Error) => e.message);
  f.close();
  await Promise.all([a, b]);
  assert.match(await c, /telemetry\.ndjson was closed before it could be synced$/);
}));

test('--fsync batch: a sync starts as soon as 1 MiB is unsynced, not only on the one-second timer', withFile(async (f) => {
  const durability = new Durability('batch', silentLogger);
  try {
    const line = `${'x'.repeat(512 * 1024 - 1)}\n`;
    f.append(line);
    assert.is(durability.written(f), undefined, 'batch mode never makes a request wait');
    assert.is(durability.rounds, 0, '512 KiB unsynced: left to the timer');
    f.append(line);
    durability.written(f);
    assert.is(durability.rounds, 1, '1 MiB unsynced: synced now');
    durability.written(f);
    assert.is(durability.rounds, 1, 'the next write joins the round in flight');
    await f.sync();
    assert.is(f.unsyncedBytes, 0);
  } finally {
    await durability.close();
  }
}));

test.run();
