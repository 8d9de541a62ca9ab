import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../lib/errors.js';
import { parseMaxAge } from '../lib/max-age.js';
import { Condition, conditionOf, conditionTypes } from '../daemon/rules/condition.js';
import { formatDuration, parseDuration } from '../daemon/rules/duration.js';
import { scopeOf } from '../daemon/rules/scope.js';
import { TypeIndex } from '../daemon/rules/type-index.js';
import { FreshnessJudge } from '../daemon/freshness/judge.js';
import { CurrentView, Reading } from '../daemon/storage/current-view.js';
import { ManualClock } from './helpers/clock.js';

// Conditions (raise, clear, for) and durations, over a real current view and judge.

const T0 = Date.parse('2026-11-25T01:00:00.000Z');

/** A view holding one reading of `weather` at a time, as the store would set it. */
function weatherFeed(clock: ManualClock) {
  const view = new CurrentView();
  const judge = new FreshnessJudge(view, parseMaxAge('weather=60', '--max-age'), clock);
  let seq = 0;
  return {
    judge,
    post(data: string) {
      seq++;
      const ts = new Date(clock.now()).toISOString();
      view.set(new Reading('weather', seq, `{"seq":${seq},"ts":"${ts}","type":"weather","data":${data},"meta":{}}`, false, clock.monotonic(), clock.now(), null, clock.now()));
    },
    scope: () => scopeOf(judge, clock.now()),
  };
}

test('hysteresis: 10,000 samples alternating +-1% around the threshold with a 5% clear margin raise once and never clear', () => {
  const clock = new ManualClock(T0);
  const feed = weatherFeed(clock);
  const condition = new Condition(conditionOf({ when: 'weather.data.w > 100', clear: 'weather.data.w < 95' }, 'test'));
  let raises = 0;
  let clears = 0;
  for (let i = 0; i < 10_000; i++) {
    feed.post(i % 2 === 0 ? '{"w":101}' : '{"w":99}');
    clock.advance(100);
    const step = condition.step(feed.scope(), clock.monotonic());
    if (step.changed && step.raised) raises++;
    if (step.changed && !step.raised) clears++;
  }
  assert.equal([raises, clears], [1, 0]);
  // without a clear expression, `not when` clears: the same samples flap
  const plain = new Condition(conditionOf({ when: 'weather.data.w > 100' }, 'test'));
  let changes = 0;
  for (let i = 0; i < 10; i++) {
    feed.post(i % 2 === 0 ? '{"w":101}' : '{"w":99}');
    if (plain.step(feed.scope(), clock.monotonic()).changed) changes++;
  }
  assert.is(changes, 10);
});

test('for: a 30 s excursion under for = 60s raises nothing; a 60 s one raises at 60 s, with dueAt to step again', () => {
  const clock = new ManualClock(T0);
  const feed = weatherFeed(clock);
  const condition = new Condition(conditionOf({ when: 'weather.data.w > 40', clear: 'weather.data.w < 30', for: '60s' }, 'test'));
  const steps: Array<[boolean, boolean, number | undefined]> = [];
  const at = (data: string, advanceMs: number) => {
    clock.advance(advanceMs);
    feed.post(data);
    const s = condition.step(feed.scope(), clock.monotonic());
    steps.push([s.raised, s.changed, s.dueAt]);
  };
  at('{"w":50}', 0); at('{"w":50}', 29_999); at('{"w":10}', 1);
  at('{"w":50}', 1000); at('{"w":50}', 59_999); at('{"w":50}', 1); at('{"w":35}', 1000); at('{"w":29}', 1000);
  assert.equal(steps, [
    [false, false, 60_000], [false, false, 60_000], [false, false, undefined],
    [false, false, 91_000], [false, false, 91_000], [true, true, undefined], [true, false, undefined], [false, true, undefined],
  ]);
});

test('unknown keeps the state, says why, and breaks a for excursion', () => {
  const clock = new ManualClock(T0);
  const feed = weatherFeed(clock);
  const condition = new Condition(conditionOf({ when: 'weather.data.w > 40', for: '10s' }, 'test'));
  feed.post('{"w":50}');
  assert.equal(condition.step(feed.scope(), clock.monotonic()), { raised: false, changed: false, unknown: undefined, dueAt: 10_000 });
  feed.post('{"v":50}');
  assert.equal(condition.step(feed.scope(), clock.monotonic()), { raised: false, changed: false, unknown: ['weather.data.w is missing'], dueAt: undefined });
  feed.post('{"w":50}');
  clock.advance(5000);
  assert.equal(condition.step(feed.scope(), clock.monotonic()).dueAt, 15_000);
  clock.advance(10_000);
  assert.equal(condition.step(feed.scope(), clock.monotonic()), { raised: true, changed: true, unknown: undefined, dueAt: undefined });
  // stale past the 60 s limit: raised stays raised, unknown
  clock.advance(61_000);
  assert.equal(condition.step(feed.scope(), clock.monotonic()), { raised: true, changed: false, unknown: ['weather is stale (age 76.0 s, limit 60 s)'], dueAt: undefined });
  // a state kept across a restart starts raised
  assert.is(new Condition(condition.spec, true).raised, true);
});

test('conditionOf: the keys checked, with the table named', () => {
  const rows: Array<[Record<string, unknown>, string]> = [
    [{}, 'rule 1: when must be an expression in a string; got "(missing)"'],
    [{ when: 'a.data.x > 1', clear: 3 }, 'rule 1: clear must be an expression in a string; got 3'],
    [{ when: 'a.data.x > 1', for: '10 parsecs' }, 'rule 1: for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, from 0 to 7 days; got "10 parsecs"'],
  ];
  for (const [table, message] of rows) {
    assert.throws(() => conditionOf(table, 'rule 1'), (e: unknown) => e instanceof ConfigError && e.message === message, message);
  }
  assert.equal(conditionTypes(conditionOf({ when: 'a.data.x > 1', clear: 'b.data.y < 1 and a.data.x < 0' }, 'r')), ['a', 'b']);
});

test('durations: spellings and bounds (rows)', () => {
  const rows: Array<[unknown, number | undefined]> = [
    ['90s', 90_000], ['15m', 900_000], ['1h', 3_600_000], ['1h30m', 5_400_000], ['250ms', 250], ['2d', 172_800_000], ['1.5s', 1500],
    [90, 90_000], [0.25, 250], [0, 0], [12n, 12_000], ['45', 45_000], ['7d', 604_800_000],
    ['8d', undefined], ['-1s', undefined], [-1, undefined], ['1 h', undefined], ['', undefined], ['1y', undefined], [true, undefined],
    [Infinity, undefined], ['s', undefined],
  ];
  for (const [value, ms] of rows) {
    if (ms === undefined) assert.throws(() => parseDuration(value, 'safe_for'), (e: unknown) => e instanceof ConfigError, String(value));
    else assert.is(parseDuration(value, 'safe_for'), ms, String(value));
  }
  assert.equal([0, 1500, 59_999, 60_000, 192_000, 900_000, 3_600_000, 90_061_000].map(formatDuration),
    ['0s', '1.5s', '59.9s', '1m', '3m12s', '15m', '1h', '1d1h1m1s']);
});

test('TypeIndex: items by the types they read, each once', () => {
  const index = new TypeIndex<string>();
  index.add('wind', ['weather']);
  index.add('dew', ['weather', 'weather']);
  index.add('ups', ['power']);
  assert.equal([index.itemsFor('weather'), index.itemsFor('power'), index.itemsFor('dome')], [['wind', 'dew'], ['ups'], []]);
  assert.equal([index.has('power'), index.has('dome')], [true, false]);
});

test.run();
