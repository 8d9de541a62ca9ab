import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../lib/log.js';
import { WriteFailures } from '../daemon/storage/write-failures.js';
import { ManualClock } from './helpers/clock.js';

// The append path's failed writes are said once per file and errno (hostile tester O's minor
// item: the alarm journal's batch refused every second on a read-only `.meridian/` logged an
// ERROR every second); the repeats are counted and said when a write succeeds again or fails
// another way. The journal is written by whole batches alone: a day file's success does not
// say it is writable again.

const T0 = Date.parse('2026-11-25T12:00:00.000Z');

function setUp() {
  const lines: string[] = [];
  const clock = new ManualClock(T0);
  const failures = new WriteFailures(clock, createLogger((l) => lines.push(l.trimEnd()), 'debug', () => clock.now()), '/s/.meridian/batch.json');
  return { lines, clock, failures };
}

test('a failure repeated is said once; its repeats when a whole batch is written again', () => {
  const { lines, clock, failures } = setUp();
  for (let i = 0; i < 5; i++) {
    failures.failed('/s/.meridian/batch.json', 'EROFS', 'write of 2 line(s) to /s/.meridian/batch.json failed (EROFS); not recorded (503)');
    clock.advance(1000);
    // a turn's readings written to the day file between: the journal is not known writable from that
    failures.succeeded(false);
  }
  assert.equal(lines, ['2026-11-25T12:00:00.000Z ERROR write of 2 line(s) to /s/.meridian/batch.json failed (EROFS); not recorded (503) (said once until a write succeeds)']);
  failures.succeeded(true);
  failures.succeeded(true);
  assert.equal(lines.slice(1), ['2026-11-25T12:00:05.000Z ERROR 4 more write(s) to /s/.meridian/batch.json failed (EROFS) since 2026-11-25T12:00:00.000Z; not recorded (503)']);
});

test('another file or errno: the repeats of the last said, the new one said in full; a day file cleared by any write', () => {
  const { lines, failures } = setUp();
  failures.failed('/s/site_20261125.ndjson', 'ENOSPC', 'first');
  failures.failed('/s/site_20261125.ndjson', 'ENOSPC', 'first again');
  failures.failed('/s/site_20261125.ndjson', 'EIO', 'second');
  failures.failed('/s/site_20261125.ndjson', 'EIO', 'second again');
  failures.succeeded(false);
  failures.failed('/s/site_20261125.ndjson', 'EIO', 'third');
  assert.equal(lines.map((l) => l.replace(/^\S+ /, '')), [
    'ERROR first (said once until a write succeeds)',
    'ERROR 1 more write(s) to /s/site_20261125.ndjson failed (ENOSPC) since 2026-11-25T12:00:00.000Z; not recorded (503)',
    'ERROR second (said once until a write succeeds)',
    'ERROR 1 more write(s) to /s/site_20261125.ndjson failed (EIO) since 2026-11-25T12:00:00.000Z; not recorded (503)',
    'ERROR third (said once until a write succeeds)',
  ]);
});

test.run();
