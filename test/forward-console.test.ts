import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SinkStatus } from '../lib/wire.js';
import { applyUpdate, initialState } from '../tui/console-state.js';
import { headerLines, sinksBehind } from '../tui/header.js';

// The console header names the forwarding sinks that are behind (not ok, or 10 s or more of lag).

const T = Date.parse('2026-03-18T00:00:10.000Z');
const ready = { ready: true as const, run_active: false, version: '0.1.0' };
const ok: SinkStatus = { name: 'db', kind: 'postgres', url: 'postgres://db/x', state: 'ok', lag_events: 0, lag_seconds: 0,
  last_success: '2026-03-18T00:00:09.000Z', retries: 0, dead_letters: 0, last_error: null,
  delivered: 0, ephemeral_sent: 0, ephemeral_dropped: 0, skipped: [] };

test('sinksBehind: only sinks that are not ok or 10 s behind, with their lag', () => {
  const rows: Array<[string, SinkStatus[], string | undefined]> = [
    ['none configured', [], undefined],
    ['keeping up', [ok, { ...ok, name: 'bus', lag_events: 40, lag_seconds: 0.2 }], undefined],
    ['10 s behind but delivering', [{ ...ok, lag_events: 52, lag_seconds: 10 }], 'sinks behind: db 52 events'],
    ['failing and retrying', [{ ...ok, name: 'bus', state: 'failing', lag_events: 1834, lag_seconds: 95 }, ok, { ...ok, name: 'web', state: 'retrying', lag_events: 1, lag_seconds: 1 }],
      'sinks behind: bus failing 1834 events, web retrying 1 event'],
  ];
  for (const [name, sinks, text] of rows) assert.is(sinksBehind(sinks), text, name);
});

test('the header shows the sinks behind from the last status, and keeps them while /status does not answer', () => {
  const status = (at: number, sinks: SinkStatus[] | undefined) =>
    ({ kind: 'status' as const, ready, run: undefined, sinks, serverTime: T, sentAt: at, receivedAt: at });
  const behind = [{ ...ok, state: 'failing' as const, lag_events: 7, lag_seconds: 30 }];
  const s = applyUpdate(initialState(), status(T, behind));
  const info = { address: 'localhost:6562', intervalMs: 1000, type: undefined, shown: 0, total: 0, stale: 0 };
  assert.is(headerLines(s, info)[1], 'run site  0 types  poll 1s  sort type  sinks behind: db failing 7 events');
  const again = applyUpdate(s, status(T + 1000, undefined));
  assert.equal(again.sinks, behind);
  const caughtUp = applyUpdate(again, status(T + 2000, [ok]));
  assert.is(headerLines(caughtUp, info)[1], 'run site  0 types  poll 1s  sort type');
});

test.run();
