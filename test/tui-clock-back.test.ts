import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseMaxAge } from '../lib/max-age.js';
import type { Envelope } from '../lib/wire.js';
import { applyUpdate, initialState } from '../tui/console-state.js';
import { screenModel } from '../tui/screen-model.js';

// The console after the clock stepped back: a reading's age never goes back (it is at least
// its age when it came plus the time since on the local monotonic clock), so a dead sensor
// turns stale on time in the console too, as the daemon judges it.

const T0 = Date.parse('2026-03-18T00:00:00.000Z');
const HOUR = 3_600_000;
const weather: Envelope = { seq: 4, ts: new Date(T0 - 5_000).toISOString(), type: 'weather', data: 1, meta: {} };

// [name, local wall clock at the frame, local monotonic clock at the frame, age shown, stale]
const ROWS: Array<[string, number, number, number, boolean]> = [
  ['steady clock, 10 s later', T0 + 10_000, 10_000, 15_000, false],
  ['clock stepped back an hour, 10 s later', T0 - HOUR + 10_000, 10_000, 15_000, false],
  ['clock stepped back an hour, 56 s later: stale', T0 - HOUR + 56_000, 56_000, 61_000, true],
  ['clock stepped forward an hour: by ts', T0 + HOUR + 10_000, 10_000, HOUR + 15_000, true],
  ['no monotonic clock: by ts, never negative', T0 - HOUR, NaN, 0, false],
];

for (const [name, localNow, localMono, age, stale] of ROWS) {
  test(`console age: ${name}`, () => {
    const state = applyUpdate({ ...initialState(), limits: parseMaxAge('weather=60', 'x') },
      { kind: 'view', current: { weather }, changed: [weather], receivedAt: T0, receivedMono: 0 });
    const row = screenModel(state, { localNow, localMono, limitMs: undefined, type: undefined, page: 5 }).rows[0]!;
    assert.equal([row.type, row.ageMs, row.stale], ['weather', age, stale]);
  });
}

test('console age: a newer reading of the type starts from its own receipt', () => {
  let state = applyUpdate({ ...initialState(), limits: parseMaxAge('weather=60', 'x') },
    { kind: 'view', current: { weather }, changed: [weather], receivedAt: T0, receivedMono: 0 });
  const next = { ...weather, seq: 5, ts: new Date(T0 - HOUR + 50_000).toISOString() };
  state = applyUpdate(state, { kind: 'view', current: { weather: next }, changed: [next], receivedAt: T0 - HOUR + 50_000, receivedMono: 50_000 });
  const row = screenModel(state, { localNow: T0 - HOUR + 70_000, localMono: 70_000, limitMs: undefined, type: undefined, page: 5 }).rows[0]!;
  assert.equal([row.ageMs, row.stale], [20_000, false]);
});

test.run();
