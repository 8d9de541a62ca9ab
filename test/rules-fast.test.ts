import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseMaxAge } from '../lib/max-age.js';
import { ExactNumber } from '../lib/exact-json.js';
import { parseExpression } from '../daemon/rules/compile.js';
import { firstValue, firstValueSlowly, testExpression, testSlowly } from '../daemon/rules/evaluate.js';
import { magnusDewpoint, UNKNOWN } from '../daemon/rules/fast.js';
import { fieldValue, flatMember, isFlat } from '../daemon/rules/fields.js';
import { ScopeRounds, scopeOf } from '../daemon/rules/scope.js';
import { FreshnessJudge } from '../daemon/freshness/judge.js';
import { CadenceLearner, LEARN_FACTOR, LEARN_WINDOW, LEARNED_FLOOR_S } from '../daemon/freshness/learner.js';
import { CurrentView, Reading } from '../daemon/storage/current-view.js';
import { ManualClock } from './helpers/clock.js';

// The fast path of the rule language (daemon/rules/fast.ts, fields.ts) against the slow one
// (the tree walked, evaluate.ts), which is the reference: the same truth and the same reasons
// for every row, and the fast value itself exact. Readings carry their data span as the
// daemon stamps them, so flat data is read member by member (fields.ts flatMember).

const T0 = Date.parse('2026-11-25T01:00:00.000Z');
const clock = new ManualClock(T0);

/** A reading as the appender makes it: the line, and where its data is in it. */
function stamped(type: string, seq: number, data: string, ageS = 0, meta = '{}'): Reading {
  const tsMs = clock.now() - ageS * 1000;
  const json = `{"seq":${seq},"ts":"${new Date(tsMs).toISOString()}","type":${JSON.stringify(type)},"data":${data},"meta":${meta}}`;
  return new Reading(type, seq, json, false, clock.monotonic() - ageS * 1000, tsMs, null, tsMs, data);
}

const view = new CurrentView();
[
  ['weather', '{"wind_kmh":45,"temp_c":10,"rh":80,"gust":"high","zero":-0,"big":1e400,"calm":false,"none":null,"s":"a,\\"b\\"}"}'],
  ['escaped', '{"wind_kmh":5,"note":"x,\\"wind_kmh\\":9","temp_c":-3.5e1,"rh":0,"wind_kmh":7,"on":true,"label":"a}b","nothing":null,"big":1e400}'],
  ['plain', '{"wind_kmh":5,"note":"x,wind_kmh:9","temp_c":-3.5e1,"rh":0,"wind_kmh":7,"on":true,"label":"a}b","nothing":null,"big":1e400}'],
  ['nested', '{"a":{"wind_kmh":99},"wind_kmh":3,"list":[1,2]}'],
  ['spaced', '{"wind_kmh": 4, "state": "dome open"}'],
  ['weather.station', '{"wind_kmh":5}'],
  ['power', '{"ups":{"on_battery":false}}', 312.4],
  ['scalar', '21.5'],
  ['tagged', '{}', 0, '{"source":"roof","count":2}'],
].forEach(([type, data, ageS, meta], i) => view.set(stamped(type as string, i + 1, data as string, ageS as number | undefined, meta as string | undefined)));
const judge = new FreshnessJudge(view, parseMaxAge('power=180', '--max-age'), clock);

// expression, and the fast value (UNKNOWN: the slow path says why)
const rows: Array<[string, unknown]> = [
  ['weather.data.wind_kmh > 40', true],
  ['weather.data.wind_kmh', 45],
  ['weather.data.gust', 'high'],
  ['weather.data.gust == "high"', true],
  ['weather.data.zero == 0', true],
  ['-weather.data.zero', 0],
  ['weather.data.big', Infinity],
  ['weather.data.big > 1', UNKNOWN],
  ['weather.data.big == weather.data.big', true],
  ['weather.data.calm', false],
  ['not weather.data.calm', true],
  ['weather.data.none', null],
  ['weather.data.none == 1', UNKNOWN],
  ['weather.data.s == "a,\\"b\\"}"', true],
  ['weather.data.missing > 1', UNKNOWN],
  ['escaped.data.wind_kmh', 7],
  ['escaped.data.temp_c', -35],
  ['escaped.data.on and escaped.data.label == "a}b"', true],
  ['escaped.data.nothing', null],
  ['escaped.data.note', 'x,"wind_kmh":9'],
  ['escaped.data.rh', 0],
  ['plain.data.wind_kmh', 7],
  ['plain.data.note', 'x,wind_kmh:9'],
  ['plain.data.on and plain.data.label == "a}b"', true],
  ['plain.data.temp_c', -35],
  ['plain.data.nothing', null],
  ['plain.data.big', Infinity],
  ['plain.data.kmh', UNKNOWN],
  ['plain.data.wind', UNKNOWN],
  ['dewpoint(plain.data.temp_c, plain.data.rh) < 1', UNKNOWN],
  ['nested.data.wind_kmh', 3],
  ['nested.data.a.wind_kmh', 99],
  ['nested.data.list[1]', 2],
  ['nested.data.list[2]', UNKNOWN],
  ['spaced.data.wind_kmh + 1', 5],
  ['spaced.data.state == "dome open"', true],
  ['weather.station.data.wind_kmh == 5', true],
  ['scalar.data > 21', true],
  ['tagged.meta.source == "roof" and tagged.meta.count == 2', true],
  ['power.data.ups.on_battery', UNKNOWN],
  ['stale(power) and not stale(weather) and stale(nothing.here)', true],
  ['age(power) > 312', true],
  ['age(rain) > 1', UNKNOWN],
  ['rain.data.mm > 1', UNKNOWN],
  ['rain.data.mm > 1 or weather.data.wind_kmh > 40', true],
  ['weather.data.wind_kmh > 40 or rain.data.mm > 1', true],
  ['rain.data.mm > 1 and weather.data.wind_kmh < 40', false],
  ['rain.data.mm > 1 and weather.data.wind_kmh > 40', UNKNOWN],
  ['rain.data.mm > 1 or power.data.x', UNKNOWN],
  ['weather.data.gust or true', true],
  ['weather.data.gust and true', UNKNOWN],
  ['(weather.data.temp_c + 2) * 3 / 4 - 1', 8],
  ['weather.data.temp_c / 0 > 1', UNKNOWN],
  ['weather.data.temp_c - weather.data.temp_c', 0],
  ['abs(-3) == 3 and min(4, 2, 9) == 2 and max(1, 7) == 7', true],
  ['min(weather.data.zero, 0)', -0],
  ['max(1, rain.data.mm)', UNKNOWN],
  ['min(weather.data.gust, 1)', UNKNOWN],
  ['abs(weather.data.temp_c - dewpoint(weather.data.temp_c, weather.data.rh) - 3.294) < 0.0001', true],
  ['dewpoint(weather.data.temp_c, 0) < 1', UNKNOWN],
  ['dewpoint(weather.data.temp_c, 110.5) < 1', UNKNOWN],
  ['dewpoint(-243.12, 50) < 1', UNKNOWN],
  ['"a" != "b" and 1 == 1.0 and true != false', true],
  ['1 == "1"', false],
  ['"x" > 1', UNKNOWN],
  ['nested.data.a > 1', UNKNOWN],
  ['nested.data.a == 1', UNKNOWN],
  ['not nested.data.list', UNKNOWN],
];

for (const [text, fast] of rows) {
  test(`fast and slow agree: ${text}`, () => {
    const compiled = parseExpression(text);
    const scope = scopeOf(judge, clock.now());
    const value = compiled.fast(scope);
    assert.ok(Object.is(value, fast), `fast value ${String(value)}, expected ${String(fast)}`);
    assert.equal(testExpression(compiled, scope), testSlowly(compiled, scopeOf(judge, clock.now())));
    const first = firstValue(compiled, scope);
    const slow = firstValueSlowly(compiled, scopeOf(judge, clock.now()));
    assert.equal(plainValue(first), plainValue(slow));
  });
}

/** A value outcome with an ExactNumber as its number and its text, to compare. */
function plainValue(o: ReturnType<typeof firstValue>): unknown {
  if (!o || !('value' in o)) return o;
  return o.value instanceof ExactNumber ? { number: o.value.value, text: o.value.text } : { value: o.value };
}

test('a flat reading is read member by member, any other through the parsed envelope, the values the same as JSON.parse gives', () => {
  const flat = view.get('plain')!;
  for (const type of ['plain', 'spaced']) assert.is(isFlat(view.get(type)!), true, type);
  for (const type of ['escaped', 'nested', 'weather', 'scalar', 'tagged']) assert.is(isFlat(view.get(type)!), type === 'tagged', type);
  // a reading read back from a file has no data span: never read as flat
  assert.is(isFlat(new Reading('plain', 1, flat.json)), false);
  for (const type of ['escaped', 'plain', 'nested', 'spaced', 'weather']) {
    const reading = view.get(type)!;
    const parsed = JSON.parse(reading.json).data as Record<string, unknown>;
    for (const key of ['wind_kmh', 'note', 'temp_c', 'rh', 'on', 'label', 'nothing', 'big', 'kmh', 'a', 'state', 'gust', 'zero']) {
      const expected = Object.hasOwn(parsed, key) ? parsed[key] : UNKNOWN;
      const got = fieldValue(reading, 'data', [key], isFlat(reading));
      if (typeof expected !== 'object' || expected === null) assert.ok(Object.is(got, expected), `${type} ${key}: ${String(got)}`);
      else assert.equal(got, expected);
    }
  }
});

test('a member of flat data: readings laid out otherwise, names ending another, repeated names, whitespace and meta read as JSON.parse reads them', () => {
  const datas = [
    '{"t":1.5,"rh":80,"wind":12}',
    '{"t":2.5,"rh":81,"wind":13}',
    '{"rh":82,"t":3.5,"wind":14}',
    '{"t":4,"wind":15,"t":-4.25}',
    '{"xt":9,"wind":16}',
    '{"t" :5,"wind":17}',
    '{"t": "five","wind":18}',
    '{"t":6 ,"wind":19}',
    '{"a":"t","b":"wind:","t":"x,y","wind":20}',
    '{"t":7.5,"rh":83,"wind":21}',
  ];
  for (const key of ['t', 'wind', 'rh']) {
    datas.forEach((data, i) => {
      const reading = stamped('laid-out', 100 + i, data, 0, `{"${key}":"meta's"}`);
      const parsed = JSON.parse(data) as Record<string, unknown>;
      const expected = Object.hasOwn(parsed, key) ? parsed[key] : UNKNOWN;
      const got = fieldValue(reading, 'data', [key], isFlat(reading), `${key}":`);
      assert.ok(Object.is(got, expected), `${data} ${key}: ${String(got)}, expected ${String(expected)}`);
    });
  }
});

test('the alarm value of a flat reading keeps the number as recorded', () => {
  const first = firstValue(parseExpression('plain.data.temp_c < 0'), scopeOf(judge, clock.now()));
  assert.equal(plainValue(first), { number: -35, text: '-3.5e1' });
});

test('ScopeRounds: one scope per instant and view; a new reading or another millisecond makes a new one', () => {
  const rounds = new ScopeRounds(judge, view);
  const a = rounds.at(T0);
  assert.is(rounds.at(T0), a);
  assert.is.not(rounds.at(T0 + 1), a);
  const b = rounds.at(T0 + 1);
  // an expression held by a rule and an alarm (two compilations of one text) is judged once per scope, again in the next
  const [rule, alarm] = [parseExpression('other.data.x > 1'), parseExpression('other.data.x > 1')];
  view.set(stamped('other', 99, '{"x":1}'));
  const c = rounds.at(T0 + 1);
  assert.is.not(c, b);
  assert.equal([testExpression(rule, c).truth, testExpression(alarm, c).truth], [false, false]);
  view.set(stamped('other', 100, '{"x":2}'));
  assert.equal([testExpression(rule, rounds.at(T0 + 1)).truth, testExpression(alarm, rounds.at(T0 + 1)).truth], [true, true]);
  assert.equal(testExpression(alarm, c).truth, false);
});


test('ScopeRounds: a field read by several expressions is read once per reading, each scope reading its own', () => {
  const rounds = new ScopeRounds(judge, view);
  // two compilations reading one field (a rule's and an alarm's), and a third reading another
  const [sum, product, other] = [parseExpression('cell.data.x + 0'), parseExpression('cell.data.x * 1'), parseExpression('cell.data.y')];
  view.set(stamped('cell', 200, '{"x":1,"y":"a"}'));
  const a = rounds.at(T0 + 2);
  assert.equal([sum.fast(a), product.fast(a), other.fast(a)], [1, 1, 'a']);
  view.set(stamped('cell', 201, '{"x":2,"y":"b"}'));
  const b = rounds.at(T0 + 2);
  assert.equal([product.fast(b), sum.fast(b), other.fast(b)], [2, 2, 'b']);
  // the older scope, asked again after the newer one, still reads its own reading
  assert.equal([sum.fast(a), product.fast(a), other.fast(a), sum.fast(b)], [1, 1, 'a', 2]);
  // a reading without the field: unknown in its scope, not the value the last scope read
  view.set(stamped('cell', 202, '{"y":"c"}'));
  assert.equal([sum.fast(rounds.at(T0 + 2)), product.fast(b)], [UNKNOWN, 2]);
});

test('the learned limit: the median of the newest LEARN_WINDOW intervals, kept sorted as they come, equal to a sort of the ring', () => {
  const learner = new CadenceLearner();
  const intervals: number[] = [];
  let mono = 1000;
  learner.seen('t', mono);
  // ties, a run going down, one going up, and more than two windows, so that every place of the ring is left
  const pattern = [1000, 1000, 250, 4000, 999.5, 1000, 3, 3, 7000, 1200];
  for (let i = 0; i < 3 * LEARN_WINDOW + 7; i++) {
    const interval = pattern[i % pattern.length]! + (i % 7 === 0 ? i : 0);
    mono += interval;
    intervals.push(interval);
    learner.seen('t', mono);
    const ring = intervals.slice(-LEARN_WINDOW).sort((x, y) => x - y);
    const m = ring.length >> 1;
    const median = ring.length % 2 === 1 ? ring[m]! : (ring[m - 1]! + ring[m]!) / 2;
    const expected = intervals.length < 5 ? undefined : Math.max(LEARNED_FLOOR_S, Math.round((LEARN_FACTOR * median) / 100) / 10);
    assert.is(learner.limitOf('t'), expected, `after ${intervals.length} intervals`);
  }
});

test('FreshnessJudge.isFresh says what judge() says, before and after the limit, across wall-clock steps (its per-reading window included)', () => {
  const c = new ManualClock(T0);
  const v = new CurrentView();
  const start = c.now();
  const json = `{"seq":1,"ts":"${new Date(start).toISOString()}","type":"wind","data":{"x":1},"meta":{}}`;
  v.set(new Reading('wind', 1, json, false, c.monotonic(), start, null, start));
  const j = new FreshnessJudge(v, parseMaxAge('wind=10', '--max-age'), c);
  const seen: Array<[string, boolean, boolean]> = [];
  const look = (what: string) => seen.push([what, j.isFresh('wind', c.now()), !j.judge('wind', c.now())!.freshness.stale]);
  look('at once');
  c.advance(10_000); look('at the limit');
  c.step(1); look('wall 1 ms past');
  c.step(-5_000); look('wall back 5 s');
  c.advance(4_999); look('mono past the limit, wall at it');
  c.advance(1); look('mono 1 ms past');
  c.step(-60_000); look('wall far back, mono past');
  assert.equal(seen, [
    ['at once', true, true], ['at the limit', true, true], ['wall 1 ms past', false, false], ['wall back 5 s', true, true],
    ['mono past the limit, wall at it', false, false], ['mono 1 ms past', false, false], ['wall far back, mono past', false, false],
  ]);
  assert.is(j.isFresh('calm', c.now()), false);
  // a newer reading of the type that is older by its ts (stale at once) while the one before is still surely fresh, then a fresh one again: each judged as judge() does
  v.set(new Reading('wind', 4, `{"seq":4,"ts":"${new Date(c.now()).toISOString()}","type":"wind","data":{"x":4},"meta":{}}`, false, c.monotonic(), c.now(), null, c.now()));
  assert.is(j.isFresh('wind', c.now()), true);
  const old = c.now() - 30_000;
  v.set(new Reading('wind', 2, `{"seq":2,"ts":"${new Date(old).toISOString()}","type":"wind","data":{"x":2},"meta":{}}`, false, c.monotonic(), old, null, c.now()));
  assert.equal([j.isFresh('wind', c.now()), j.judge('wind', c.now())!.freshness.stale], [false, true]);
  v.set(new Reading('wind', 3, `{"seq":3,"ts":"${new Date(c.now()).toISOString()}","type":"wind","data":{"x":3},"meta":{}}`, false, c.monotonic(), c.now(), null, c.now()));
  assert.equal([j.isFresh('wind', c.now()), j.judge('wind', c.now())!.freshness.stale], [true, false]);
  c.advance(10_001);
  assert.equal([j.isFresh('wind', c.now()), j.judge('wind', c.now())!.freshness.stale], [false, true]);
});

test('a flat member number is the number JSON.parse reads, bit for bit: the digits-and-power-of-ten path and the Number() one', () => {
  const texts = ['0', '-0', '-0.0', '1', '8.55', '-12.5', '0.1', '0.30000000000000004', '123456789012345', '1234567890123456',
    '99999999999999999999', '0.000001', '1e5', '1E-7', '-2.5e+3', '12.340', '1.7976931348623157e308', '5e-324', '1e400', '-1e400',
    '0.1234567890123456789', '4.35', '1.005', '9007199254740993', '0.0000000000000000000001'];
  // and random decimals of 1 to 18 digits
  let x = 12345;
  const next = () => { x = (x * 1103515245 + 12345) % 2147483648; return x; };
  for (let i = 0; i < 3000; i++) {
    const int = String(next() % 10 ** (next() % 9));
    const frac = String(next()).slice(0, next() % 10);
    texts.push(`${next() % 2 ? '-' : ''}${int}${frac ? `.${frac}` : ''}`);
  }
  const wrong = texts.filter((t) => !Object.is(flatMember(`{"a":1,"v":${t},"z":0}`, 'v":'), JSON.parse(`{"v":${t}}`).v));
  assert.equal(wrong, []);
});

test('the scope tells a type fresh, stale or missing as judge() does, at the one instant of the scope', () => {
  const c = new ManualClock(T0);
  const v = new CurrentView();
  v.set(new Reading('wind', 1, `{"seq":1,"ts":"${new Date(c.now()).toISOString()}","type":"wind","data":{"x":1},"meta":{}}`, false, c.monotonic(), c.now(), null, c.now()));
  const j = new FreshnessJudge(v, parseMaxAge('wind=10', '--max-age'), c);
  const told = () => {
    const s = scopeOf(j, c.now());
    const r = s.reading('wind');
    return [r === undefined ? 'none' : r === null ? 'stale' : 'fresh', s.reading('rain') === undefined ? 'none' : 'some', j.judge('wind', c.now())!.freshness.stale ? 'stale' : 'fresh'];
  };
  const seen = [told()];
  c.advance(10_000); seen.push(told());
  c.advance(1); seen.push(told());
  c.step(-20_000); seen.push(told());
  assert.equal(seen, [['fresh', 'none', 'fresh'], ['fresh', 'none', 'fresh'], ['stale', 'none', 'stale'], ['stale', 'none', 'stale']]);
});

test('staleAt: the first monotonic ms at which judge() says stale, by receipt and by a ts the wall clock runs past first', () => {
  const c = new ManualClock(T0);
  const v = new CurrentView();
  const j = new FreshnessJudge(v, parseMaxAge('wind=10', '--max-age'), c);
  const firstStale = (tsBehindMs: number) => {
    v.set(new Reading('wind', 1, `{"seq":1,"ts":"x","type":"wind","data":{},"meta":{}}`, false, c.monotonic(), c.now() - tsBehindMs, null, c.now()));
    const at = scopeOf(j, c.now()).staleAt('wind')!;
    const startMono = c.monotonic();
    c.advance(at - startMono - 1);
    const before = j.judge('wind', c.now())!.freshness.stale;
    c.advance(1);
    return [at - startMono, before, j.judge('wind', c.now())!.freshness.stale];
  };
  assert.equal(firstStale(0), [10_001, false, true]);
  assert.equal(firstStale(4_000), [6_001, false, true]);
  assert.is(scopeOf(j, c.now()).staleAt('wind'), undefined);
  assert.is(scopeOf(j, c.now()).staleAt('rain'), undefined);
});

test('a part holding a call is taken once per scope for every expression holding it, each scope its own value', () => {
  const rounds = new ScopeRounds(judge, view);
  const when = parseExpression('dew.data.t - dewpoint(dew.data.t, dew.data.rh) < 1');
  const clear = parseExpression('dew.data.t - dewpoint(dew.data.t, dew.data.rh) > 2');
  const other = parseExpression('dew.data.t - dewpoint(dew.data.t, dew.data.rh) * 2 >= 0');
  view.set(stamped('dew', 300, '{"t":10,"rh":95}'));
  const a = rounds.at(T0 + 3);
  const margin = 10 - magnusDewpoint(10, 95);
  assert.equal([when.fast(a), clear.fast(a), other.fast(a)], [margin < 1, margin > 2, 10 - magnusDewpoint(10, 95) * 2 >= 0]);
  view.set(stamped('dew', 301, '{"t":10,"rh":50}'));
  const b = rounds.at(T0 + 3);
  const wide = 10 - magnusDewpoint(10, 50);
  assert.equal([clear.fast(b), when.fast(b), when.fast(a), clear.fast(b)], [wide > 2, wide < 1, margin < 1, wide > 2]);
  assert.equal([testExpression(when, b), testSlowly(when, b)], [{ truth: false, reasons: [] }, { truth: false, reasons: [] }]);
  // unknown in its scope when the field is missing, not the part's value from another scope
  view.set(stamped('dew', 302, '{"t":10}'));
  assert.is(clear.fast(rounds.at(T0 + 3)), UNKNOWN);
});

test.run();
