import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope, JsonValue } from '../lib/wire.js';
import { displayWidth } from '../table/display-width.js';
import { fitRight, fitText, formatAge, formatClock, formatInterval, printable, summarizeData } from '../table/format.js';
import { buildRows, isStale, matchesFilter, nextSort, sortRows, toRow, trackChanges, type Row, type SortKey } from '../table/rows.js';
import { columnWidths, headerLine, rowLine } from '../table/table-lines.js';
import { runLabel } from '../tui/header.js';
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
  assert.is(printable('ok\n\tok\u0007\u009b'), 'ok\n\tok\uFFFD\uFFFD');
  assert.is(formatClock(Date.parse('2026-03-18T00:05:48.955Z')), '00:05:48Z');
  assert.is(formatInterval(1000), '1s');
  assert.is(formatInterval(2500), '2.5s');
  assert.is(formatInterval(250), '250ms');
});

const staleness: [string, number, number, boolean][] = [
  ['younger', 119_999, 120_000, false],
  ['exactly the threshold is not yet stale', 120_000, 120_000, false],
  ['older', 120_001, 120_000, true],
];
for (const [name, age, threshold, expected] of staleness) {
  test(`isStale: ${name}`, () => assert.is(isStale(age, threshold), expected));
}

const snapshot = {
  weather: env('weather', 7, '2026-03-17T23:59:56.000Z', { temp_c: 4 }),
  dome: env('dome', 12, '2026-03-17T23:57:55.000Z', 'open', { run_id: '003' }),
  Camera: env('Camera', 3, '2026-03-17T23:59:59.500Z', { exp: 30 }),
  mount: env('mount', 9, '2026-03-17T23:00:00.000Z', null),
};
const base = { now: T0, staleMs: 120_000, flashMs: 2_000, changedAt: new Map<string, number>(), filter: '' };

const orders: [SortKey, string[]][] = [
  ['type', ['Camera', 'dome', 'mount', 'weather']],
  ['age', ['Camera', 'weather', 'dome', 'mount']],
  ['seq', ['dome', 'mount', 'weather', 'Camera']],
];
for (const [sort, expected] of orders) {
  test(`buildRows sorted by ${sort}`, () => {
    assert.equal(buildRows(snapshot, { ...base, sort }).map((r) => r.type), expected);
  });
}

test('buildRows: ages, staleness, run ids, summaries and the change highlight', () => {
  const changedAt = new Map([['weather', T0 - 1_999], ['dome', T0 - 2_000]]);
  const rows = buildRows(snapshot, { ...base, changedAt, sort: 'type' });
  assert.equal(rows.map((r) => [r.type, r.age, r.seq, r.runId, r.summary, r.stale, r.changed]), [
    ['Camera', '0s', 3, '-', 'exp=30', false, false],
    ['dome', '2m05s STALE', 12, '003', 'open', true, false],
    ['mount', '1h STALE', 9, '-', 'null', true, false],
    ['weather', '4s', 7, '-', 'temp_c=4', false, true],
  ]);
});

const filters: [string, string, string[]][] = [
  ['empty matches all', '', ['Camera', 'dome', 'mount', 'weather']],
  ['substring', 'o', ['dome', 'mount']],
  ['case-insensitive', 'CAM', ['Camera']],
  ['no match', 'zzz', []],
];
for (const [name, filter, expected] of filters) {
  test(`filter: ${name}`, () => {
    assert.equal(buildRows(snapshot, { ...base, filter, sort: 'type' }).map((r) => r.type), expected);
  });
}

test('matchesFilter handles unicode', () => {
  assert.is(matchesFilter('Météo Dôme', 'dôme'), true);
  assert.is(matchesFilter('天気', '気'), true);
});

test('sortRows by type: case-insensitive, then exact', () => {
  const rows = ['b', 'B', 'a', 'A'].map((t) => ({ type: t, ageMs: 0, seq: 1 }) as Row);
  assert.equal(sortRows(rows, 'type').map((r) => r.type), ['A', 'a', 'B', 'b']);
});

test('sortRows by age: newest ts first, also for readings newer than the estimated daemon clock (ages clamped to 0)', () => {
  const rows = [
    env('camera', 1, '2026-03-18T00:00:00.100Z'), env('dome', 2, '2026-03-18T00:00:00.200Z'),
    env('mount', 3, '2026-03-18T00:00:00.300Z'), env('weather', 1, '2026-03-18T00:00:00.400Z'),
  ].map((e) => toRow(e, { now: T0, staleMs: 120_000, flashMs: 0, changedAt: new Map() }));
  assert.equal(rows.map((r) => r.ageMs), [0, 0, 0, 0], 'the clock estimate is behind every reading');
  assert.equal(sortRows(rows, 'age').map((r) => r.type), ['weather', 'mount', 'dome', 'camera']);
});

test('nextSort cycles type -> age -> seq -> type', () => {
  assert.equal([nextSort('type'), nextSort('age'), nextSort('seq')], ['age', 'seq', 'type']);
});

test('trackChanges: first snapshot flags nothing; changed, new, kept and dropped types', () => {
  const first = trackChanges(undefined, snapshot, T0, new Map());
  assert.equal([...first], []);
  const next = {
    weather: env('weather', 8, '2026-03-18T00:00:00.000Z', { temp_c: 5 }), // changed
    dome: snapshot.dome, // same
    dust: env('dust', 1, '2026-03-18T00:00:00.000Z', 3), // new
  };
  const earlier = new Map([['dome', T0 - 500], ['mount', T0 - 100]]);
  assert.equal([...trackChanges(snapshot, next, T0, earlier)], [['weather', T0], ['dome', T0 - 500], ['dust', T0]]);
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
  ['down from nothing selected', undefined, 1, 'dome'],
  ['down', 'dome', 1, 'mount'],
  ['up', 'dome', -1, 'Camera'],
  ['up stops at the top', 'Camera', -1, 'Camera'],
  ['page down stops at the bottom', 'dome', 10, 'weather'],
  ['home', 'mount', 'home', 'Camera'],
  ['end', 'Camera', 'end', 'weather'],
  ['vanished selection restarts at the top', 'gone', 1, 'dome'],
];
for (const [name, from, move, expected] of moves) {
  test(`moveSelection: ${name}`, () => {
    assert.is(moveSelection(buildRows(snapshot, { ...base, sort: 'type' }), from, move), expected);
  });
}

test('table lines at 96 columns (a 100-wide terminal) show every column', () => {
  const rows = buildRows(snapshot, { ...base, changedAt: new Map([['weather', T0]]), sort: 'type' });
  const w = columnWidths(96, rows);
  assert.equal(w, { type: 7, age: 12, seq: 3, run: 3, data: 61 });
  assert.is(headerLine(w), '  TYPE     AGE           SEQ  RUN  DATA' + ' '.repeat(57));
  assert.is(rowLine(rows[3]!, w), '* weather  4s              7  -    temp_c=4' + ' '.repeat(53));
  assert.is(rowLine(rows[1]!, w).trimEnd(), '  dome     2m05s STALE    12  003  open');
});

test('table lines: a narrow table cuts the summary first, then the type', () => {
  const long = { t: env('a very long event type name indeed', 123456, '2026-03-18T00:00:00.000Z', { x: 1 }) };
  const rows = buildRows(long, { ...base, sort: 'type' });
  assert.equal(columnWidths(80, rows), { type: 28, age: 12, seq: 6, run: 3, data: 21 });
  assert.equal(columnWidths(60, rows), { type: 28, age: 12, seq: 6, run: 3, data: 0 });
  assert.equal(columnWidths(50, rows), { type: 21, age: 12, seq: 6, run: 3, data: 0 });
  assert.is(rowLine(rows[0]!, columnWidths(50, rows)), '  a very long event ty…  0s            123456  -  ');
  assert.equal(columnWidths(20, rows), { type: 6, age: 12, seq: 6, run: 3, data: 0 });
});

test('1,000 types build, sort and lay out quickly', () => {
  const many: Record<string, Envelope> = {};
  for (let i = 0; i < 1000; i++) {
    const type = `sensor-${String(i).padStart(4, '0')}`;
    many[type] = env(type, i + 1, new Date(T0 - i * 1000).toISOString(), { v: i });
  }
  const started = performance.now();
  const rows = buildRows(many, { ...base, sort: 'age' });
  const widths = columnWidths(96, rows);
  const lines = rows.map((r) => rowLine(r, widths));
  assert.is(lines.length, 1000);
  assert.is(rows[0]!.type, 'sensor-0000');
  assert.is(rows[999]!.age, '16m39s STALE');
  assert.ok(performance.now() - started < 1000, 'under a second even on a busy machine');
});

test.run();
