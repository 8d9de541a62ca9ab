import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyUpdate, initialState } from '../tui/console-state.js';
import { headerLines } from '../tui/header.js';

// The console's header says when the daemon's disk is full (GET /status `disk_full`), and stops
// saying it once the disk has space; a /status that did not answer changes nothing.

const T = Date.parse('2026-03-18T00:00:10.000Z');
const ready = { ready: true as const, run_active: false, version: '0.1.0' };
const full = { since: '2026-03-18T00:00:02.000Z', file: '/data/site_20260317.ndjson', code: 'ENOSPC' };
const info = { address: '127.0.0.1:6562', intervalMs: 1000, type: undefined, shown: 0, total: 0, stale: 0 };
const status = (diskFull: typeof full | null | undefined) =>
  ({ kind: 'status' as const, ready, run: undefined, sinks: [], diskFull, serverTime: T, sentAt: T, receivedAt: T });

// [name, disk_full of the successive statuses, the header's second line after the last]
const ROWS: Array<[string, Array<typeof full | null | undefined>, string]> = [
  ['no full disk', [null], 'run site  0 types  poll 1s  sort type'],
  ['a full disk', [full], 'run site  DISK FULL since 00:00:02Z: not recording  0 types  poll 1s  sort type'],
  ['space again', [full, null], 'run site  0 types  poll 1s  sort type'],
  ['a status that did not answer keeps it', [full, undefined], 'run site  DISK FULL since 00:00:02Z: not recording  0 types  poll 1s  sort type'],
];

for (const [name, statuses, line] of ROWS) {
  test(`header: ${name}`, () => {
    const state = statuses.reduce((s, diskFull) => applyUpdate(s, status(diskFull)), initialState());
    assert.is(headerLines(state, info)[1], line);
  });
}

test.run();
