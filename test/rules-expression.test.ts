import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../lib/errors.js';
import { parseMaxAge } from '../lib/max-age.js';
import { compileExpression, parseExpression, ExpressionError } from '../daemon/rules/compile.js';
import { firstValue, testExpression } from '../daemon/rules/evaluate.js';
import { scopeOf } from '../daemon/rules/scope.js';
import { FreshnessJudge } from '../daemon/freshness/judge.js';
import { CurrentView, Reading } from '../daemon/storage/current-view.js';
import { ManualClock } from './helpers/clock.js';
import { ExactNumber, exactJson } from '../lib/exact-json.js';

// The rule language (docs/safety.md) over a real current view and freshness judge.

const T0 = Date.parse('2026-11-25T01:00:00.000Z');

function viewOf(clock: ManualClock, readings: Array<[type: string, data: string, ageS?: number, meta?: string]>): CurrentView {
  const view = new CurrentView();
  readings.forEach(([type, data, ageS = 0, meta = '{}'], i) => {
    const tsMs = clock.now() - ageS * 1000;
    const json = `{"seq":${i + 1},"ts":"${new Date(tsMs).toISOString()}","type":${JSON.stringify(type)},"data":${data},"meta":${meta}}`;
    view.set(new Reading(type, i + 1, json, false, clock.monotonic() - ageS * 1000, tsMs, null, tsMs));
  });
  return view;
}

const clock = new ManualClock(T0);
const view = viewOf(clock, [
  ['weather', '{"wind_kmh":45,"temp_c":10,"rh":80,"gust":"high","list":[1,2.5],"big":1e400,"nested":{"a":{"b":3}}}'],
  ['weather.station', '{"wind_kmh":5}'],
  ['dome-status', '{"open":true,"state":"open"}'],
  ['dome status', '{"open":false}'],
  ['power', '{"ups":{"on_battery":false}}', 312.4],
  ['scalar', '21.5'],
  ['tagged', '{}', 0, '{"source":"roof","count":2}'],
]);
const judge = new FreshnessJudge(view, parseMaxAge('power=180', '--max-age'), clock);

const truthRows: Array<[expression: string, truth: boolean | undefined, reasons: string[]]> = [
  ['weather.data.wind_kmh > 40', true, []],
  ['weather.data.wind_kmh > 40 and weather.data.temp_c < 5', false, []],
  ['weather.data.wind_kmh > 40 && weather.data.temp_c < 5 || true', true, []],
  ['not (weather.data.wind_kmh < 40)', true, []],
  ['!(weather.data.wind_kmh < 40)', true, []],
  ['not(weather.data.wind_kmh < 40)and(true)or(false)', true, []],
  ['weather.data.gust == "high" and "rain and snow" != "rain &&  snow"', true, []],
  ['band.data.or > 1', undefined, ['band is missing (no reading)']],
  ['-weather.data.temp_c == -10', true, []],
  ['(weather.data.temp_c + 2) * 3 / 4 - 1 == 8', true, []],
  ['weather.station.data.wind_kmh == 5', true, []],
  ['dome-status.data.open', true, []],
  ['dome-status.data.state == "open"', true, []],
  ['dome-status.data.state != "closed"', true, []],
  ['"dome status".data.open == false', true, []],
  ['weather.data.list[1] == 2.5', true, []],
  ['weather.data.nested.a.b >= 3', true, []],
  ['weather.data["wind_kmh"] <= 45', true, []],
  ['scalar.data > 21', true, []],
  ['tagged.meta.source == "roof" and tagged.meta.count == 2', true, []],
  ['abs(-3) == 3 and min(4, 2, 9) == 2 and max(1, 7) == 7', true, []],
  ['abs(weather.data.temp_c - dewpoint(weather.data.temp_c, weather.data.rh) - 3.294) < 0.0001', true, []],
  ['age(weather) == 0 and age(power) > 312 and age(dome-status) < 1 and age("dome status") < 1', true, []],
  ['stale(power) and not stale(weather) and stale(nothing.here)', true, []],
  ['weather.data.wind_kmh - weather.station.data.wind_kmh == 40', true, []],
  // unknown: fail-safe, with the reason
  ['power.data.ups.on_battery', undefined, ['power is stale (age 312.4 s, limit 180 s)']],
  ['rain.data.mm > 1', undefined, ['rain is missing (no reading)']],
  ['weather.data.pressure > 1000', undefined, ['weather.data.pressure is missing']],
  ['weather.data.list[5] > 1', undefined, ['weather.data.list[5] is missing']],
  ['weather.data.gust > 40', undefined, ['weather.data.gust is not a number ("high")']],
  ['weather.data.nested > 40', undefined, ['weather.data.nested is not a number (an object)']],
  ['weather.data.big > 40', undefined, ['weather.data.big is not a number (a number too large for a double)']],
  ['weather.data.wind_kmh', undefined, ['weather.data.wind_kmh is not true or false (a number)']],
  ['weather.data.temp_c / 0 > 1', undefined, ['(weather.data.temp_c / 0) is not a finite number']],
  ['dewpoint(weather.data.temp_c, 0) < 1', undefined, ['0 is not a relative humidity above 0 and at most 110 % (0)']],
  ['rain.data.mm > 1 or power.data.x', undefined, ['rain is missing (no reading)', 'power is stale (age 312.4 s, limit 180 s)']],
  ['age(rain) > 1', undefined, ['rain is missing (no reading)']],
  // three-valued logic: a value that decides alone decides
  ['rain.data.mm > 1 or weather.data.wind_kmh > 40', true, []],
  ['rain.data.mm > 1 and weather.data.wind_kmh < 40', false, []],
  ['stale(power) or power.data.ups.on_battery', true, []],
];

test('expressions: true, false, or unknown with the reasons (rows)', () => {
  const scope = scopeOf(judge, clock.now());
  for (const [text, truth, reasons] of truthRows) {
    assert.equal(testExpression(parseExpression(text), scope), { truth, reasons }, text);
  }
});

const badRows: Array<[expression: string, message: string]> = [
  ['weather.data.wind_kmh > ', 'expected expression after > at the end'],
  ['weather.data.t.', 'a name expected after the dot at the end'],
  ['weather.data.wind_kmh > 40 )', 'unexpected ")" at position 28'],
  ['wind_kmh > 40', 'unknown name wind_kmh (a field is written TYPE.data.FIELD) at position 1'],
  ['weather.wind_kmh > 40', 'a field is written TYPE.data.FIELD or TYPE.meta.FIELD at position 1'],
  ['weather.data.x % 2 == 1', 'the operator % is not part of the language at position 16'],
  ['weather.data.x === 1', 'the operator === is not part of the language at position 16'],
  ['weather.data.x ? 1 : 2', 'a ? b : c is not part of the language at position 1'],
  ['sqrt(weather.data.x) > 1', 'unknown function sqrt (the functions are abs, min, max, age, stale, dewpoint) at position 1'],
  ['dewpoint(weather.data.t) > 1', 'dewpoint() takes 2 arguments at position 1'],
  ['max() > 1', 'max() takes 1 or more arguments at position 1'],
  ['min() > 1', 'min() takes 1 or more arguments at position 1'],
  ['abs(1, 2) > 1', 'abs() takes 1 argument at position 1'],
  ['age(1) > 1', 'age() takes a type name (age(weather), age("dome status")) at position 1'],
  ['weather.data.s == "open', 'a string is not closed at position 19'],
  ['weather.data.x == null', 'null is not a value of the language (numbers, true, false and "strings" are) at position 19'],
  ['weather.data.x < 1e400', '1e400 is too large for a number of the language at position 18'],
  ['('.repeat(65) + '1' + ')'.repeat(65) + ' > 0', 'parentheses are nested more than 64 deep at position 65'],
  ['1' + ' + 1'.repeat(1100) + ' > 0', 'an expression is at most 4096 characters at position 4097'],
  ['!'.repeat(4000) + 'true', 'the expression is nested more than 200 levels deep at position 1'],
  ['- '.repeat(201) + '1 < 0', 'the expression is nested more than 200 levels deep at position 1'],
  ['[1, 2]', 'an array is not part of the language at position 1'],
  ['weather.data.x > 1; weather.data.y > 2', 'more than one expression is not part of the language at position 1'],
  // outside a string an expression is ASCII: a look-alike is never read as part of a name (hostile tester P, finding 4)
  ['weather.data.x\u0081 > 1', 'the character U+0081 is not part of the language outside a string (a name with it is written in quotes: "dome status".data.x) at position 15'],
  ['dome\u2010status.data.open == true', 'the character U+2010 is not part of the language outside a string (a name with it is written in quotes: "dome status".data.x) at position 5'],
  ['w.data.a\u2212w.data.b > 40', 'the character U+2212 is not part of the language outside a string (a name with it is written in quotes: "dome status".data.x) at position 9'],
  ['w.data.a \u2010 w.data.b > 40', 'the character U+2010 is not part of the language outside a string (a name with it is written in quotes: "dome status".data.x) at position 10'],
  ['w.data.wind\u0085 > 40', 'the character U+0085 is not part of the language outside a string (a name with it is written in quotes: "dome status".data.x) at position 12'],
  ['w.data.x\u00a0> 40', 'the character U+00A0 is not part of the language outside a string (a name with it is written in quotes: "dome status".data.x) at position 9'],
];

test('a bad expression: what and the position (rows)', () => {
  for (const [text, message] of badRows) {
    try {
      parseExpression(text);
      assert.unreachable(text);
    } catch (error) {
      assert.instance(error, ExpressionError, text);
      assert.is((error as Error).message, message, text);
    }
  }
});

test('compileExpression: a ConfigError naming the key, the position and the text', () => {
  const where = 'the config file: safety rule 1 (wind): when';
  assert.throws(() => compileExpression('weather.data.w >', where), (e: unknown) => e instanceof ConfigError
    && e.message === `${where} must be an expression of the rule language (expected expression after > at the end; see docs/safety.md); got "weather.data.w >"`);
  assert.throws(() => compileExpression(40, where), (e: unknown) => e instanceof ConfigError
    && e.message === `${where} must be an expression in a string; got 40`);
  assert.throws(() => compileExpression('  ', where), (e: unknown) => e instanceof ConfigError);
});

test('the deepest and longest expressions taken are compiled and evaluated', () => {
  const scope = scopeOf(judge, clock.now());
  assert.equal(testExpression(parseExpression('('.repeat(64) + 'weather.data.wind_kmh' + ')'.repeat(64) + ' > 40'), scope), { truth: true, reasons: [] });
  const long = 'weather.data.wind_kmh' + ' + 1'.repeat(197) + ' > 197';
  assert.equal(testExpression(parseExpression('- '.repeat(198) + '1 > 0'), scope), { truth: true, reasons: [] });
  assert.equal(testExpression(parseExpression(long), scope), { truth: true, reasons: [] });
  // max() and min() take as many arguments as the 4096 characters hold (64 was once a limit of its own)
  const many = (name: string, n: number, last: string) => `${name}(${Array.from({ length: n - 1 }, (_, i) => (name === 'max' ? String(-i) : '0')).join(', ')}, ${last})`;
  assert.equal(testExpression(parseExpression(`${many('max', 65, 'weather.data.wind_kmh')} == 45`), scope), { truth: true, reasons: [] });
  assert.equal(testExpression(parseExpression(`${many('min', 1000, '-1')} == -1`), scope), { truth: true, reasons: [] });
});

test('the types an expression reads (every candidate of a dotted type, function arguments)', () => {
  assert.equal(parseExpression('a.b.data.x > 1 and stale(dome-status) or age("dome status") > 2 and c-d.meta.k == 1').types,
    ['a.b', 'dome-status', 'dome status', 'c-d']);
  assert.equal(parseExpression('x.data.data.y > 1').types, ['x.data', 'x']);
  // a quoted type is that type, a bracketed name a field: never more of the type (hostile tester P, finding 1)
  assert.equal(parseExpression('"k".data.b.data.x > 40').types, ['k']);
  assert.equal(parseExpression('k.data["b"].data.x > 40').types, ['k']);
  assert.equal(parseExpression('k.data.b["data"].x > 40').types, ['k']);
  assert.equal(parseExpression('"dome status".data.x["data"].y > 1').types, ['dome status']);
  // a dashed word operator is a type name; a dash after a field path a minus (finding 2 and 3)
  assert.equal(parseExpression('not-ready.data.v > 40').types, ['not-ready']);
  assert.equal(parseExpression('or-x.data.v > 1 and and-y.data.v > 1 and age(not-ready) < 3').types, ['or-x', 'and-y', 'not-ready']);
  assert.equal(parseExpression('not -ready.data.v > 40').types, ['ready']);
  assert.equal(parseExpression('dome-status.data.x-dome-status.data.y > 5').types, ['dome-status']);
  assert.equal(parseExpression('-dome-status.data.x > -5').types, ['dome-status']);
  assert.equal(parseExpression('w.data.t-q-r.data.u > 5').types, ['w', 'q-r']);
  // a minus between two references is a minus when spaced, or after a field path
  assert.equal(testExpression(parseExpression('weather.data.wind_kmh-weather.station.data.wind_kmh == 40'), scopeOf(judge, clock.now())),
    { truth: true, reasons: [] });
});

test('a quoted or bracketed name stays what it says when a longer dotted type has a reading', () => {
  const v = viewOf(clock, [['k', '{"b":{"data":{"x":50}}}'], ['k.data.b', '{"x":5}'], ['not-ready', '{"v":50}'], ['-ready', '{"v":5}']]);
  const scope = scopeOf(new FreshnessJudge(v, [], clock), clock.now());
  for (const text of ['"k".data.b.data.x > 40', 'k.data["b"].data.x > 40', 'k.data.b["data"].x > 40', 'not-ready.data.v > 40']) {
    assert.equal(testExpression(parseExpression(text), scope), { truth: true, reasons: [] }, text);
  }
  // the documented longest-type rule for plain dotted names is kept
  assert.equal(testExpression(parseExpression('k.data.b.data.x > 40'), scope), { truth: false, reasons: [] });
});

test('a config error shows the invisible characters of what it quotes escaped (a C1 control, a bidi override), the text still JSON', () => {
  const where = 'the config file: safety rule 1 (x): when';
  assert.throws(() => compileExpression('w.data.x\u0081 > 1 or w.data.s == "\u202e"', where), (e: unknown) => e instanceof ConfigError
    && e.message.endsWith('; got "w.data.x\\u0081 > 1 or w.data.s == \\"\\u202e\\""'));
});

test('firstValue: the value of the first field reference, or why there is none', () => {
  const scope = scopeOf(judge, clock.now());
  // a number read by a reference comes with its recorded spelling (found when first written out)
  const read = (text: string) => {
    const v = firstValue(parseExpression(text), scope) as { value: ExactNumber };
    assert.instance(v.value, ExactNumber);
    return [v.value.value, v.value.text, exactJson(v.value), JSON.stringify(v.value)];
  };
  assert.equal(read('weather.data.wind_kmh > 40'), [45, '45', '45', '45']);
  assert.equal(read('1 < weather.data.temp_c'), [10, '10', '10', '10']);
  assert.equal(firstValue(parseExpression('power.data.x > 1'), scope), { reasons: ['power is stale (age 312.4 s, limit 180 s)'] });
  assert.is(firstValue(parseExpression('age(weather) > 1'), scope), undefined);
});

test.run();
