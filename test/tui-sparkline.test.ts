import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../lib/wire.js';
import { sparkline, type Point } from '../tui/sparkline.js';
import { emptyTrend, extendTrend, numericFields, trendLines, TREND_WINDOW_MS } from '../tui/trend.js';

// The console's sparkline and trends as pure functions: float maths, newest on the right,
// gaps as spaces, an ASCII fallback.

const at = (values: (number | undefined)[], step = 10): Point[] =>
  values.flatMap((v, i) => (v === undefined ? [] : [{ t: i * step, v }]));
const window8 = { from: 0, to: 80, width: 8, ascii: false };

// [name, points, options, expected]
const LINES: [string, Point[], Parameters<typeof sparkline>[1], string][] = [
  ['rising: every level once', at([0, 1, 2, 3, 4, 5, 6, 7]), window8, '▁▂▃▄▅▆▇█'],
  ['a range under 1 is scaled as floats', at([0.1, 0.1125, 0.125, 0.1375, 0.15, 0.1625, 0.175, 0.2]), window8, '▁▂▃▄▄▅▆█'],
  ['negative values', at([-3.5, -1, 0, 4.2, 4.2, 0, -1, -3.5]), window8, '▁▃▄██▄▃▁'],
  ['the newest point is on the right', [{ t: 79, v: 5 }, { t: 0, v: 1 }], window8, '▁      █'],
  ['gaps are spaces', at([1, undefined, undefined, 2, undefined, 3, undefined, 4]), window8, '▁  ▃ ▆ █'],
  ['a flat series sits in the middle', at([2, 2, 2, 2]), { ...window8, width: 4, to: 40 }, '▄▄▄▄'],
  ['a column is the mean of its points', [{ t: 0, v: 0 }, { t: 5, v: 10 }, { t: 10, v: 5 }, { t: 70, v: 10 }], window8, '▁▁     █'],
  ['points outside the window are left out', [{ t: -1, v: 100 }, { t: 80, v: -100 }, { t: 0, v: 1 }, { t: 79, v: 2 }], window8, '▁      █'],
  ['non-finite values are left out', [{ t: 0, v: NaN }, { t: 10, v: Infinity }, { t: 20, v: 1 }, { t: 30, v: 2 }], window8, '  ▁█    '],
  ['ASCII under monochrome', at([0, 1, 2, 3, 4, 5, 6, 7]), { ...window8, ascii: true }, '_.-~=+*#'],
  ['more columns than points', at([1, 2]), { from: 0, to: 20, width: 4, ascii: false }, '▁ █ '],
  ['no width', at([1]), { ...window8, width: 0 }, ''],
  ['an empty window', at([1]), { ...window8, to: 0 }, ''],
  ['no points', [], window8, '        '],
];
for (const [name, points, options, expected] of LINES) {
  test(`sparkline: ${name}`, () => assert.is(sparkline(points, options), expected));
}

// [name, data, fields]
const FIELDS: [string, unknown, [string, number][]][] = [
  ['a number', 4.5, [['value', 4.5]]],
  ['an object', { temp_c: -3.5, wind: 'calm', humidity: 71 }, [['temp_c', -3.5], ['humidity', 71]]],
  ['nested one level', { sky: { clouds: 2, name: 'x' } }, [['sky.clouds', 2]]],
  ['nested deeper are left out', { a: { b: { c: 1 } } }, []],
  ['arrays, strings, null, booleans', { l: [1, 2], s: '3', n: null, b: true }, []],
];
for (const [name, data, fields] of FIELDS) {
  test(`numericFields: ${name}`, () => assert.equal(numericFields(data as never), fields));
}

test('a trend keeps the last hour of its type, each reading once, and draws a line per field', () => {
  const now = Date.parse('2026-03-18T01:00:00.000Z');
  const reading = (seq: number, minutesAgo: number, data: unknown, type = 'weather'): Envelope =>
    ({ seq, ts: new Date(now - minutesAgo * 60_000).toISOString(), type, data: data as never, meta: {} });
  const trend = emptyTrend('weather');
  extendTrend(trend, [reading(1, 90, { t: 100 }), reading(2, 50, { t: 1, h: 70 }), reading(3, 30, { t: 2 }), reading(4, 20, 'x', 'dome')], now);
  extendTrend(trend, [reading(3, 30, { t: 2 }), reading(5, 1, { t: 4, h: 72 })], now);
  assert.equal([...trend.fields].map(([f, p]) => [f, p.map((x) => x.v)]), [['t', [1, 2, 4]], ['h', [70, 72]]]);
  trend.loading = false;
  assert.equal(trendLines(trend, now, 40, true), [
    'last hour:',
    `t ${sparkline(trend.fields.get('t')!, { from: now - TREND_WINDOW_MS, to: now, width: 30, ascii: true })} 1..4  4`,
    `h ${sparkline(trend.fields.get('h')!, { from: now - TREND_WINDOW_MS, to: now, width: 27, ascii: true })} 70..72  72`,
  ]);
  assert.equal(trendLines(emptyTrend('x'), now, 40, true), [], 'nothing while there is nothing to draw');
  assert.equal(trendLines(undefined, now, 40, true), []);
});

test('a type that keeps posting: the readings remembered as added are those of the window, at most 16,000', () => {
  const t0 = Date.parse('2026-03-18T01:00:00.000Z');
  const reading = (seq: number, at: number): Envelope => ({ seq, ts: new Date(at).toISOString(), type: 'power', data: seq, meta: {} });
  const trend = emptyTrend('power');
  // 10 readings a second for 30 minutes, fed a second at a time
  for (let s = 0; s < 1800; s++) {
    extendTrend(trend, Array.from({ length: 10 }, (_, k) => reading(s * 10 + k + 1, t0 + s * 1000 + k * 100)), t0 + s * 1000 + 999);
  }
  assert.is(trend.seen.size, 16_000);
  assert.is([...trend.seen.keys()][0], ':2001', 'the oldest forgotten first');
  assert.is(trend.fields.get('value')!.length, 4000);
  // an hour and a half later only readings of the window are remembered
  extendTrend(trend, [reading(18_001, t0 + 5_400_000)], t0 + 5_400_000);
  assert.equal([...trend.seen.keys()], [':18001']);
  assert.equal(trend.fields.get('value')!.map((p) => p.v), [18_001]);
});

test.run();
