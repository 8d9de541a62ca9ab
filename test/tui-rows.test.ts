import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope, JsonValue } from '../lib/wire.js';
import { displayWidth } from '../lib/display-width.js';
import { fitRight, fitText, formatAge, formatClock, formatInterval, printable, summarizeData } from '../table/format.js';
import { parseMaxAge } from '../lib/max-age.js';
import { PALETTES } from '../table/palette.js';
import {
  ageOf, buildRows, changeOf, isStale, matchesFilter, nextSort, sortRows, toRow, type Change, type Judge, type Row, type SortKey, type SortOrder,
} from '../table/rows.js';
import { placeAgain, sortInPlace } from '../table/row-order.js';
import { columnLines } from '../table/fleet-units.js';
import { columnWidths, headerLine, rowLine, sortMark, styledLine } from '../table/table-lines.js';
import { initialState, NOTHING_FRESH, type ConsoleState } from '../tui/console-state.js';
import { runLabel } from '../tui/header.js';
import { belowText, consoleJudge, positionText, screenModel, screenModeler, windowTop } from '../tui/screen-model.js';
import { moveSelection } from '../tui/selection.js';

// The console's pure parts, without a terminal: exact strings for exact inputs.

const T0 = Date.parse('2026-03-18T00:00:00.000Z');

function env(type: string, seq: number, ts: string, data: JsonValue = null, meta: Envelope['meta'] = {}): Envelope {
  return { seq, ts, type, data, meta };
}

const ages: [string, number, string][] = [
  ['zero', 0, '0s'],
  ['negative (daemon clock behind)', -1500, '0s'],
  ['under a second', 999, '0s'],
  ['four seconds', 4_000, '4s'],
  ['last second of a minute', 59_999, '59s'],
  ['one minute', 60_000, '1m00s'],
  ['two minutes five', 125_000, '2m05s'],
  ['last second of an hour', 3_599_000, '59m59s'],
  ['one hour', 3_600_000, '1h'],
  ['three hours and a bit', 3 * 3_600_000 + 59 * 60_000, '3h'],
  ['one day', 86_400_000, '1d'],
  ['ten days', 10 * 86_400_000 + 5, '10d'],
];
for (const [name, ms, expected] of ages) {
  test(`formatAge: ${name}`, () => assert.is(formatAge(ms), expected));
}

const summaries: [string, JsonValue, string][] = [
  ['null', null, 'null'],
  ['number', 12.5, '12.5'],
  ['boolean', true, 'true'],
  ['bare string', 'open', 'open'],
  ['string with space', 'half open', '"half open"'],
  ['empty string', '', '""'],
  ['string with a newline is escaped', 'a\nb', '"a\\nb"'],
  ['array', [1, 'a', null], '[1,"a",null]'],
  ['empty object', {}, '{}'],
  ['flat object', { temp_c: -3.5, sky: 'clear', rain: false }, 'temp_c=-3.5 sky=clear rain=false'],
  ['nested values as compact JSON', { wind: { dir: 270, kmh: 12 }, tags: ['a'] }, 'wind={"dir":270,"kmh":12} tags=["a"]'],
  ['unicode kept', { météo: 'ensoleillé', 天気: '晴れ' }, 'météo=ensoleillé 天気=晴れ'],
  ['odd key quoted', { 'dome status': 'open' }, '"dome status"=open'],
];
for (const [name, data, expected] of summaries) {
  test(`summarizeData: ${name}`, () => assert.is(summarizeData(data), expected));
}

const fits: [string, string, number, string][] = [
  ['pads', 'abc', 5, 'abc  '],
  ['exact', 'abcde', 5, 'abcde'],
  ['cuts with ellipsis', 'abcdef', 5, 'abcd…'],
  ['zero width', 'abc', 0, ''],
  ['wide characters count two', '天気晴れ', 5, '天気…'],
  ['wide characters padded', '天気', 6, '天気  '],
  ['control characters replaced', 'a\u001bb', 4, 'a\uFFFDb '],
  ['newline becomes a space', 'a\nb', 3, 'a b'],
];
for (const [name, text, width, expected] of fits) {
  test(`fitText: ${name}`, () => {
    assert.is(fitText(text, width), expected);
    assert.is(displayWidth(fitText(text, width)), Math.max(0, width));
  });
}

test('fitRight, displayWidth, printable, formatClock, formatInterval', () => {
  assert.is(fitRight('42', 5), '   42');
  assert.is(fitRight('123456', 4), '123…');
  assert.is(displayWidth('météo'), 5);
  assert.is(displayWidth('天気'), 4);
  assert.is(printable('ok\n\tok\u0007\u009b\u007f\u202a\u202e\u2066\u2069\u2029'), 'ok\n\tok\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\u2029');
  assert.is(formatClock(Date.parse('2026-03-18T00:05:48.955Z')), '00:05:48Z');
  assert.is(formatInterval(1000), '1s');
  assert.is(formatInterval(2500), '2.5s');
  assert.is(formatInterval(250), '250ms');
});

const staleness: [string, number | undefined, number | undefined, boolean][] = [
  ['younger', 119_999, 120_000, false],
  ['exactly the limit is not yet stale', 120_000, 120_000, false],
  ['older', 120_001, 120_000, true],
  ['no limit: never stale', 10 ** 12, undefined, false],
  ['no reading under a limit: stale', undefined, 120_000, true],
  ['no reading, no limit: not stale', undefined, undefined, false],
];
for (const [name, age, limit, expected] of staleness) {
  test(`isStale: ${name}`, () => assert.is(isStale(age, limit), expected));
}

const snapshot = {
  weather: env('weather', 7, '2026-03-17T23:59:56.000Z', { temp_c: 4 }),
  dome: env('dome', 12, '2026-03-17T23:57:55.000Z', 'open', { run_id: '003' }),
  Camera: env('Camera', 3, '2026-03-17T23:59:59.500Z', { exp: 30 }),
  mount: env('mount', 9, '2026-03-17T23:00:00.000Z', null),
};
/** The daemon's limits in these tests: 120 s for every type but weather (no limit). */
const judge: Judge = (type, e) => ({ ageMs: e ? ageOf(e, T0) : undefined, limitMs: type === 'weather' ? undefined : 120_000 });
const base = { judge, filter: '', order: { key: 'type', reverse: false } as SortOrder };

// [order, reversed, rows in order: the stale ones (dome, mount) pinned on top]
const orders: [SortKey, boolean, string[]][] = [
  ['type', false, ['dome', 'mount', 'Camera', 'weather']],
  ['type', true, ['mount', 'dome', 'weather', 'Camera']],
  ['age', false, ['dome', 'mount', 'Camera', 'weather']],
  ['age', true, ['mount', 'dome', 'weather', 'Camera']],
  ['seq', false, ['dome', 'mount', 'weather', 'Camera']],
  ['seq', true, ['mount', 'dome', 'Camera', 'weather']],
];
for (const [key, reverse, expected] of orders) {
  test(`buildRows sorted by ${key}${reverse ? ', reversed' : ''}: stale rows pinned on top`, () => {
    assert.equal(buildRows(snapshot, { ...base, order: { key, reverse } }).map((r) => r.type), expected);
  });
}

test('buildRows: ages, staleness, run ids, the change marks and missing expected types', () => {
  const changes = new Map<string, Change>([['weather', { keys: new Set(['temp_c']) }]]);
  const rows = buildRows(snapshot, { ...base, changes, missing: ['power', 'weather'] });
  assert.equal(rows.map((r) => [r.type, r.age, r.seq, r.runId, r.stale, r.change]), [
    ['dome', '2m05s STALE', 12, '003', true, undefined],
    ['mount', '1h STALE', 9, '-', true, undefined],
    ['power', 'MISSING', undefined, '-', true, undefined],
    ['Camera', '0s', 3, '-', false, undefined],
    ['weather', '4s', 7, '-', false, { keys: new Set(['temp_c']) }],
  ]);
});

const filters: [string, string, string[]][] = [
  ['empty matches all', '', ['dome', 'mount', 'Camera', 'weather']],
  ['substring', 'o', ['dome', 'mount']],
  ['case-insensitive', 'CAM', ['Camera']],
  ['no match', 'zzz', []],
];
for (const [name, filter, expected] of filters) {
  test(`filter: ${name}`, () => {
    assert.equal(buildRows(snapshot, { ...base, filter }).map((r) => r.type), expected);
  });
}

test('matchesFilter handles unicode', () => {
  assert.is(matchesFilter('Météo Dôme', 'dôme'), true);
  assert.is(matchesFilter('天気', '気'), true);
});

test('sortRows by type: case-insensitive, then exact', () => {
  const rows: Row[] = ['b', 'B', 'a', 'A'].map((t) => toRow(t, env(t, 1, '2026-03-18T00:00:00.000Z'), judge));
  assert.equal(sortRows(rows, { key: 'type', reverse: false }).map((r) => r.type), ['A', 'a', 'B', 'b']);
});

test('sortRows by age: newest ts first, also for readings newer than the estimated daemon clock (ages clamped to 0)', () => {
  const rows = [
    env('camera', 1, '2026-03-18T00:00:00.100Z'), env('dome', 2, '2026-03-18T00:00:00.200Z'),
    env('mount', 3, '2026-03-18T00:00:00.300Z'), env('weather', 1, '2026-03-18T00:00:00.400Z'),
  ].map((e) => toRow(e.type, e, judge));
  assert.equal(rows.map((r) => r.ageMs), [0, 0, 0, 0], 'the clock estimate is behind every reading');
  assert.equal(sortRows(rows, { key: 'age', reverse: false }).map((r) => r.type), ['weather', 'mount', 'dome', 'camera']);
});

test('nextSort cycles type -> age -> seq -> type; the sorted column is marked', () => {
  assert.equal([nextSort('type'), nextSort('age'), nextSort('seq')], ['age', 'seq', 'type']);
  const marks = (['type', 'age', 'seq'] as SortKey[]).flatMap((key) => [sortMark({ key, reverse: false }), sortMark({ key, reverse: true })]);
  assert.equal(marks, ['▲', '▼', '▲', '▼', '▼', '▲']);
  const w = columnWidths(60, []);
  assert.is(headerLine(w, { key: 'age', reverse: true }).trimEnd(), '  TYPE   AGE▼           SEQ  RUN  DATA');
});

test('changeOf: a new type, changed values and keys; the same reading or the same value again is no change', () => {
  const cases: [string, Envelope | undefined, Envelope, Change | undefined][] = [
    ['value changed', snapshot.weather, env('weather', 8, '2026-03-18T00:00:00.000Z', { temp_c: 5 }), { keys: new Set(['temp_c']) }],
    ['new reading, same value', snapshot.dome, env('dome', 13, '2026-03-18T00:00:00.000Z', 'open', { run_id: '003' }), undefined],
    ['a key added', snapshot.Camera, env('Camera', 4, '2026-03-18T00:00:00.000Z', { exp: 30, gain: 2 }), { keys: new Set(['gain']) }],
    ['the same reading', snapshot.mount, snapshot.mount!, undefined],
    ['the same reading parsed again', snapshot.mount, { ...snapshot.mount!, data: 'other' }, undefined],
    ['new type', undefined, env('dust', 1, '2026-03-18T00:00:00.000Z', 3), { keys: undefined }],
    ['scalar', env('d', 1, 'a', 'open'), env('d', 2, 'b', 'closed'), { keys: undefined }],
  ];
  for (const [name, before, after, expected] of cases) assert.equal(changeOf(before, after), expected, name);
});

const runs: [string, boolean | undefined, string | undefined, string][] = [
  ['record wins', true, '007', '007'],
  ['no run active', false, undefined, 'site'],
  ['active, record unknown: newest reading with a run id', true, undefined, '003'],
  ['unknown state: derived from readings', undefined, undefined, '003'],
];
for (const [name, active, runId, expected] of runs) {
  test(`runLabel: ${name}`, () => {
    const record = runId ? { run_id: runId, run_dir: '/r', meta: {}, started_at: '2026-03-17T20:00:00.000Z' } : undefined;
    assert.is(runLabel(active, record, snapshot), expected);
  });
}

test('runLabel: nothing known and no run ids means site', () => {
  assert.is(runLabel(undefined, undefined, undefined), 'site');
});

const moves: [string, string | undefined, number | 'home' | 'end', string][] = [
  ['down from nothing selected', undefined, 1, 'mount'],
  ['down', 'mount', 1, 'Camera'],
  ['up', 'mount', -1, 'dome'],
  ['up stops at the top', 'dome', -1, 'dome'],
  ['page down stops at the bottom', 'mount', 10, 'weather'],
  ['home', 'Camera', 'home', 'dome'],
  ['end', 'dome', 'end', 'weather'],
  ['vanished selection restarts at the top', 'gone', 1, 'mount'],
];
for (const [name, from, move, expected] of moves) {
  test(`moveSelection: ${name}`, () => {
    assert.is(moveSelection(buildRows(snapshot, base), from, move), expected);
  });
}

test('table lines at 96 columns (a 100-wide terminal) show every column; changed parts highlighted like watch -d', () => {
  const changes = new Map<string, Change>([['weather', { keys: new Set(['temp_c']) }]]);
  const rows = buildRows({ ...snapshot, weather: env('weather', 7, '2026-03-17T23:59:56.000Z', { temp_c: 4, sky: 'clear' }) }, { ...base, changes });
  const w = columnWidths(96, rows);
  assert.equal(w, { type: 7, age: 12, seq: 4, run: 3, data: 60 });
  assert.is(headerLine(w, base.order), '  TYPE▲    AGE            SEQ  RUN  DATA' + ' '.repeat(56));
  assert.is(rowLine(rows[3]!, w), '* weather  4s               7  -    temp_c=4 sky=clear' + ' '.repeat(42));
  assert.is(rowLine(rows[3]!, w, PALETTES.day).trimEnd(), '* weather  4s               7  -    \x1b[7mtemp_c=4\x1b[27m sky=clear');
  assert.is(rowLine(rows[2]!, w, PALETTES.day).trimEnd(), '  Camera   0s               3  -    exp=30', 'unchanged: no mark, nothing lit');
  assert.is(rowLine(rows[0]!, w).trimEnd(), '  dome     2m05s STALE     12  003  open');
  assert.is(styledLine(rows[0]!, 'x', PALETTES.day), '\x1b[33mx\x1b[39m');
  assert.is(styledLine(rows[0]!, 'x', PALETTES.mono), '\x1b[1mx\x1b[22m');
  assert.is(styledLine(rows[0]!, 'x', PALETTES.night), '\x1b[4mx\x1b[24m');
  assert.is(styledLine(rows[3]!, 'x', PALETTES.plain), 'x');
  const cut = columnWidths(50, rows);
  assert.is(rowLine(rows[3]!, { ...cut, data: 10 }, PALETTES.day), '* weather  4s               7  -    \x1b[7mtemp_c=4\x1b[27m …');
});

test('table lines: a narrow table cuts the summary first, then the type', () => {
  const type = 'a very long event type name indeed';
  const long = { [type]: env(type, 123456, '2026-03-18T00:00:00.000Z', { x: 1 }) };
  const rows = buildRows(long, base);
  assert.equal(columnWidths(80, rows), { type: 28, age: 12, seq: 6, run: 3, data: 21 });
  assert.equal(columnWidths(60, rows), { type: 28, age: 12, seq: 6, run: 3, data: 0 });
  assert.equal(columnWidths(50, rows), { type: 21, age: 12, seq: 6, run: 3, data: 0 });
  assert.is(rowLine(rows[0]!, columnWidths(50, rows)), '  a very long event ty…  0s            123456  -  ');
  assert.equal(columnWidths(20, rows), { type: 6, age: 12, seq: 6, run: 3, data: 0 });
});

test('the screen model: the rows in sight, the position, and what is out of sight above and below', () => {
  const many: Record<string, Envelope> = {};
  for (let i = 0; i < 300; i++) {
    const type = `s${String(i).padStart(3, '0')}`;
    many[type] = env(type, i + 1, new Date(T0 - (i % 50 === 7 ? 600_000 : 1000)).toISOString(), i);
  }
  const state = { ...initialState(), snapshot: many, limits: parseMaxAge('*=120', 'x'), selected: 's150', lastGoodPoll: T0 };
  const model = screenModel(state, { localNow: T0, limitMs: undefined, type: undefined, page: 8 });
  assert.equal([model.rows.length, model.staleTotal, model.selected, model.top], [300, 6, 153, 146]);
  assert.equal(model.rows.slice(0, 6).map((r) => r.type), ['s007', 's057', 's107', 's157', 's207', 's257'], 'the stale rows pinned on top');
  assert.equal([model.above, model.below], [{ count: 146, stale: 6 }, { count: 146, stale: 0 }]);
  assert.is(positionText(model), ' ↑ 146 more (6 stale)  154/300 ');
  assert.is(belowText(model.below), ' +146 more ↓ ');
  const first = screenModel({ ...state, selected: undefined, top: 0 }, { localNow: T0, limitMs: undefined, type: undefined, page: 8 });
  assert.equal([first.top, first.above, first.below], [0, { count: 0, stale: 0 }, { count: 292, stale: 0 }]);
  assert.is(positionText(first), ' 1/300 ');
  const override = screenModel({ ...state, selected: undefined, top: 0 }, { localNow: T0, limitMs: 500, type: undefined, page: 8 });
  assert.equal([override.staleTotal, belowText(override.below)], [300, ' +292 more (292 stale) ↓ ']);
  assert.equal([windowTop(0, 9, 8, 20), windowTop(10, 3, 8, 20), windowTop(15, 15, 8, 20), windowTop(3, 0, 8, 4)], [2, 3, 12, 0]);
});

test('the screen model kept between draws: ages move on, a row turning stale is pinned on top, a new view is built anew', () => {
  const view = { a: env('a', 1, '2026-03-17T23:59:00.000Z'), b: env('b', 2, '2026-03-17T23:59:30.000Z') };
  const state: ConsoleState = { ...initialState(), snapshot: view, limits: parseMaxAge('*=61', 'x'), lastGoodPoll: T0 };
  const model = screenModeler();
  const at = (ms: number) => model(state, { localNow: T0 + ms, limitMs: undefined, type: undefined, page: 8 }).rows.map((r) => `${r.type} ${r.age}`);
  assert.equal(at(0), ['a 1m00s', 'b 30s']);
  assert.equal(at(1_500), ['a 1m01s STALE', 'b 31s']);
  assert.equal(at(31_500), ['a 1m31s STALE', 'b 1m01s STALE']);
  view.a = env('a', 3, '2026-03-18T00:00:30.000Z'); // the watch's view, changed in place
  assert.equal(at(31_500), ['a 1m31s STALE', 'b 1m01s STALE'], 'nothing fresh: the rows as they were');
  state.fresh = new Set(['a']);
  assert.equal(at(31_500), ['b 1m01s STALE', 'a 1s']);
  state.snapshot = { ...view, c: env('c', 1, '2026-03-18T00:00:31.000Z') };
  state.fresh = 'view';
  assert.equal(at(31_500), ['b 1m01s STALE', 'a 1s', 'c 0s'], 'a new type: the rows built anew');
  state.snapshot = { a: state.snapshot.a!, b: state.snapshot.b! };
  assert.equal(at(31_500), ['b 1m01s STALE', 'a 1s'], 'a type gone: the rows built anew');
});

test('placeAgain: rows kept sorted put back in order after a few (or many) changed, as a whole sort would', () => {
  const order: SortOrder = { key: 'seq', reverse: false };
  const rows = Array.from({ length: 600 }, (_, i) => toRow(`t${i}`, env(`t${i}`, i + 1, '2026-03-18T00:00:00.000Z'), judge));
  sortInPlace(rows, order);
  for (const count of [0, 1, 3, 300]) {
    const moved = new Set(rows.filter((_, i) => i % 2 === 0).slice(0, count));
    for (const row of moved) row.seq = (row.seq! * 7919) % 1000;
    placeAgain(rows, moved, order);
    assert.equal(rows.map((r) => r.type), sortRows(rows, order).map((r) => r.type), `${count} moved`);
    assert.is(rows.length, 600);
  }
});

test('consoleJudge: a reading\'s own meta.max_age_s over the daemon\'s rules, the console\'s --max-age over both', () => {
  const state: ConsoleState = { ...initialState(), limits: parseMaxAge('weather=180', 'x') };
  const own = env('weather', 1, '2026-03-18T00:00:00.000Z', 1, { max_age_s: 30 });
  const plain = env('weather', 2, '2026-03-18T00:00:00.000Z', 1);
  const judge = consoleJudge(state, T0, undefined);
  assert.equal([judge('weather', own).limitMs, judge('weather', plain).limitMs], [30_000, 180_000]);
  assert.is(consoleJudge(state, T0, 5_000)('weather', own).limitMs, 5_000);
  assert.is(judge('meridian.stale', env('meridian.stale', 3, '2026-03-18T00:00:00.000Z', 1, { max_age_s: 30 })).limitMs, undefined, 'the daemon\'s own types never');
});

test('the change marks: a value changed since the frame drawn before, kept by frames without readings, gone at the next frame with readings', () => {
  const view: Record<string, Envelope> = { a: env('a', 1, '2026-03-18T00:00:01.000Z', { t: 1, h: 50 }), b: env('b', 2, '2026-03-18T00:00:02.000Z', 'open') };
  const state: ConsoleState = { ...initialState(), snapshot: view, fresh: 'view', lastGoodPoll: T0 };
  const model = screenModeler();
  const frame = (fresh?: ConsoleState['fresh']) => {
    if (fresh) state.fresh = fresh;
    const rows = model(state, { localNow: T0, limitMs: undefined, type: undefined, page: 8 }).rows;
    state.fresh = NOTHING_FRESH;
    return rows.map((r) => `${r.change ? '*' : ' '}${r.type}${r.change?.keys ? `[${[...r.change.keys]}]` : ''}`);
  };
  assert.equal(frame(), [' a', ' b'], 'the first view marks nothing');
  view.a = env('a', 3, '2026-03-18T00:00:03.000Z', { t: 2, h: 50 });
  assert.equal(frame(new Set(['a'])), ['*a[t]', ' b']);
  assert.equal(frame(), ['*a[t]', ' b'], 'a frame without readings (the ages moving on) keeps the mark');
  view.b = env('b', 4, '2026-03-18T00:00:04.000Z', 'closed');
  assert.equal(frame(new Set(['b'])), [' a', '*b'], 'a stopped changing: unmarked at the next frame with readings');
  view.b = env('b', 5, '2026-03-18T00:00:05.000Z', 'closed');
  assert.equal(frame(new Set(['b'])), [' a', ' b'], 'a new reading with the same value is no change');
  state.snapshot = { a: env('a', 3, '2026-03-18T00:00:03.000Z', { t: 2, h: 50 }), b: env('b', 6, '2026-03-18T00:00:06.000Z', 'open') };
  assert.equal(frame('view'), [' a', '*b'], 'a whole new view (a poll) is compared reading by reading');
  state.snapshot = { ...state.snapshot, c: env('c', 1, '2026-03-18T00:00:07.000Z', 1) };
  assert.equal(frame('view'), [' a', ' b', '*c'], 'a new type is marked (the rows built anew)');
  state.order = { key: 'type', reverse: true };
  assert.equal(frame(), ['*c', ' b', ' a'], 'rows built anew for another order keep their marks');
});

test('100,000 types build, sort and lay out a page quickly', () => {
  const many: Record<string, Envelope> = {};
  for (let i = 0; i < 100_000; i++) {
    const type = `sensor-${String(i).padStart(6, '0')}`;
    many[type] = env(type, i + 1, new Date(T0 - i * 10).toISOString(), { v: i });
  }
  const started = performance.now();
  const state = { ...initialState(), snapshot: many, limits: parseMaxAge('*=120', 'x'), order: { key: 'age', reverse: false } as SortOrder, lastGoodPoll: T0 };
  const model = screenModel(state, { localNow: T0, limitMs: undefined, type: undefined, page: 20 });
  const widths = columnWidths(96, model.rows);
  const lines = model.rows.slice(model.top, model.top + 20).map((r) => rowLine(r, widths, PALETTES.day));
  assert.is(lines.length, 20);
  assert.is(model.staleTotal, 87_999);
  assert.is(model.rows[0]!.type, 'sensor-012001', 'stale first, then newest first');
  assert.ok(performance.now() - started < 5000, 'seconds, not minutes, even on a busy machine');
});

test('columnLines (the fleet and coverage tables) pads by display width: wide names keep the columns after them aligned', () => {
  const rows: [string, string[][], string[]][] = [
    ['ascii', [['UNIT', 'STATE'], ['north', 'ok']], ['UNIT   STATE', 'north  ok']],
    ['wide unit', [['UNIT', 'STATE', 'LAG'], ['北ドーム', 'silent', '0'], ['south', 'ok', '12']],
      ['UNIT      STATE   LAG', '北ドーム  silent  0', 'south     ok      12']],
    ['combining mark', [['UNIT', 'STATE'], ['e\u0301te', 'ok'], ['abcd', 'ok']], ['UNIT  STATE', 'e\u0301te   ok', 'abcd  ok']],
  ];
  for (const [name, cells, lines] of rows) {
    assert.equal(columnLines(cells), lines, name);
    const at = lines.map((l) => displayWidth(l.slice(0, l.lastIndexOf(' ') + 1)));
    assert.ok(at.slice(1).every((w) => w === at[1]), `${name}: the last column starts at one display column`);
  }
});

test.run();
