import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SERIES_COLOURS } from '../chart/svg.js';
import { cli } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { ROOT, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { decodePng } from './helpers/png.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// telemetry plot against the real daemon's rollups: four hourly readings (t: 0, 10, 20, 10;
// h: 1, 2, 3, 4) drawn in the terminal (a golden file, 80 columns), as SVG (the polylines'
// exact points) and as PNG (decoded: the lines' pixels where the points put them), and every
// mistake refused with one line and exit 2.

const SPAN = ['--from', '2026-03-17T20:00Z', '--to', '2026-03-18T00:00Z', '--step', '1h', '--utc'];
let d: TestDaemon;
let dir: string;
const port = () => ['--port', String(d.port)];

test.before(async () => {
  d = await startTestDaemon({ clock: new ManualClock('2026-03-18T00:30:00.000Z'), env: { TZ: 'UTC' }, freshnessIntervalMs: 0 });
  dir = tempDir('meridian-plot-');
  const rows = [[0, 1], [10, 2], [20, 3], [10, 4]];
  const body = rows.map(([t, h], i) => `{"type":"weather","data":{"t":${t},"h":${h}},"ts":"2026-03-17T2${i}:00:00.000Z"}`).join('\n');
  const posted = await request(d.url, '/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
  assert.is(posted.status, 200);
});
test.after(async () => {
  await d.close();
  removeDir(d.siteDir);
  removeDir(dir);
});

test('in the terminal: a braille chart per field with its axes, within 80 columns', async () => {
  const run = await cli(['plot', 'weather.t', ...SPAN, ...port()]);
  assert.equal([run.code, run.stderr], [0, '']);
  const file = path.join(ROOT, 'test', 'golden', 'plot-t.txt');
  if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, run.stdout);
  assert.fixture(run.stdout, fs.readFileSync(file, 'utf8'));
  assert.equal(run.stdout.split('\n').filter((l) => [...l].length > 80), []);
});

test('--svg: one polyline per field through the exact points', async () => {
  const file = path.join(dir, 'p.svg');
  const run = await cli(['plot', 'weather.t', 'weather.h', ...SPAN, '--svg', file, ...port()]);
  assert.equal([run.code, run.stdout, run.stderr], [0, '', '']);
  const lines = [...fs.readFileSync(file, 'utf8').matchAll(/<polyline points="([^"]+)" fill="none" stroke="(#[0-9a-f]{6})" stroke-width="2"\/>/g)].map((m) => [m[1], m[2]]);
  assert.equal(lines, [['60,284 241,156 422,28 603,156', SERIES_COLOURS[0]], ['60,271.2 241,258.4 422,245.6 603,232.8', SERIES_COLOURS[1]]]);
});

test('--png: the image decoded has the lines where the points put them', async () => {
  const file = path.join(dir, 'p.png');
  const run = await cli(['plot', 'weather.t', 'weather.h', ...SPAN, '--png', file, ...port()]);
  assert.equal([run.code, run.stdout, run.stderr], [0, '', '']);
  const img = decodePng(fs.readFileSync(file));
  assert.equal([img.width, img.height], [800, 320]);
  const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  // the line (2 px, anti-aliased) covers the pixel at its point or one beside it
  const near = ([x, y]: [number, number], hex: string) => [y - 1, y, y + 1].some((row) => img.pixel(x, row).every((v, i) => Math.abs(v - rgb(hex)[i]!) <= 40));
  const rows: [string, [number, number], string][] = [
    ['t between its first two points', [150, 220], SERIES_COLOURS[0]!], ['t between its last two', [512, 92], SERIES_COLOURS[0]!],
    ['h between its first two points', [150, 265], SERIES_COLOURS[1]!], ['empty plot area', [150, 120], '#ffffff'],
  ];
  for (const [name, xy, colour] of rows) assert.ok(near(xy, colour), `${name}: ${img.pixel(...xy).join(',')}`);
});

// every chart's value axis over any finite range: the largest doubles both ways (their difference
// is past a double's range), one value only, and tiny numbers across 0
const RANGES: [string, [string, string], string[], string][] = [
  ['+-1.8e308', ['1.7976931348623157e308', '-1.7976931348623157e308'], ['-1e+308:227.2', '0:156', '1e+308:84.8'], '60,28 241,284'],
  ['one value', ['7', '7'], ['4:265.7', '6:192.6', '8:119.4', '10:46.3'], '60,156 241,156'],
  ['+-1e-300', ['1e-300', '-1e-300'], ['-1e-300:284', '-5e-301:220', '0:156', '5e-301:92', '1e-300:28'], '60,28 241,284'],
  // within a double's last digits (0.1 + 0.2): the ends are the ticks, written apart (this hung, 2 GB, then crashed)
  ['last digits', ['0.30000000000000004', '0.3'], ['0.3:284', '0.30000000000000004:28'], '60,28 241,284'],
  // a small range beside large values: labels with the digits that tell them apart
  ['101325.001 to .003', ['101325.001', '101325.003'], ['101325.001:284', '101325.0015:220', '101325.002:156', '101325.0025:92', '101325.003:28'], '60,284 241,28'],
];

test('--svg over huge, flat and tiny ranges: points inside the plot, round y labels where their values are', async () => {
  for (const [name, [first, second]] of RANGES) {
    const body = [first, second].map((v, i) => `{"type":"range${RANGES.findIndex((r) => r[0] === name)}","data":{"v":${v}},"ts":"2026-03-17T2${i}:30:00.000Z"}`).join('\n');
    assert.is((await request(d.url, '/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
  }
  for (const [i, [name, , labels, points]] of RANGES.entries()) {
    const file = path.join(dir, `range${i}.svg`);
    const run = await cli(['plot', `range${i}.v`, ...SPAN, '--svg', file, ...port()]);
    assert.equal([run.code, run.stdout, run.stderr], [0, '', ''], name);
    const svg = fs.readFileSync(file, 'utf8');
    const shown = [...svg.matchAll(/<text x="54" y="([^"]+)" text-anchor="end" dominant-baseline="middle">([^<]+)<\/text>/g)].map((m) => `${m[2]}:${m[1]}`);
    assert.equal(shown, labels, name);
    assert.equal([...svg.matchAll(/<polyline points="([^"]+)" fill="none" stroke="#1f77b4"/g)].map((m) => m[1]), [points], name);
  }
});

test('in the terminal over huge, flat and tiny ranges: the y labels drawn, the line on the rows its values put it', async () => {
  const all = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const rows: [number, string[], number[]][] = [
    [0, ['', '', ' 1e+308', '', '', '      0', '', '-1e+308', '', ''], all],
    [1, ['10', '', '', ' 8', '', '', ' 6', '', '', ' 4'], [5]],
    [2, [' 1e-300', '', ' 5e-301', '', '', '      0', '', '-5e-301', '', '-1e-300'], all],
    [3, ['0.30000000000000004', '', '', '', '', '', '', '', '', '                0.3'], all],
    [4, [' 101325.003', '', '101325.0025', '', '', ' 101325.002', '', '101325.0015', '', ' 101325.001'], all],
  ];
  for (const [i, labels, drawn] of rows) {
    const run = await cli(['plot', `range${i}.v`, ...SPAN, ...port()]);
    assert.equal([run.code, run.stderr], [0, ''], RANGES[i]![0]);
    const plot = run.stdout.split('\n').slice(1, 11).map((l) => l.split(' ┤'));
    assert.equal(plot.map((p) => p[0]!.trimEnd()), labels, RANGES[i]![0]);
    assert.equal(all.filter((r) => /[⠁-⣿]/.test(plot[r]![1]!)), drawn, RANGES[i]![0]);
  }
});

test('a field with no reading in the span is said, not drawn', async () => {
  const run = await cli(['plot', 'weather.none', ...SPAN, ...port()]);
  assert.equal([run.code, run.stdout, run.stderr], [0, '', 'telemetry: no readings of weather data.none in that span\n']);
});

test('mistakes: one line, exit 2', async () => {
  const rows: [string[], string][] = [
    [['plot'], 'TYPE.FIELD is required: what to plot, such as weather.temp_c'],
    [['plot', 'weather'], 'each series must be TYPE.FIELD (or TYPE:FIELD for a type with a dot), such as weather.temp_c; got "weather"'],
    [['plot', 'weather.'], 'each series must be TYPE.FIELD (or TYPE:FIELD for a type with a dot), such as weather.temp_c; got "weather."'],
    [['plot', 'weather.t', '--since', '2h', '--from', '-3h'], '--since and --from cannot be used together'],
    [['plot', 'weather.t', '--step', '5m'], '--step must be auto, 1m, 15m, 1h or night; got "5m"'],
    [['plot', 'weather.t', '--svg', '/nonexistent/p.svg', ...SPAN], '--svg /nonexistent/p.svg cannot be written (ENOENT)'],
  ];
  for (const [args, message] of rows) {
    const run = await cli([...args, ...port()]);
    assert.equal([run.code, run.stdout, run.stderr], [2, '', `telemetry: ${message} (see "telemetry plot --help")\n`], args.join(' '));
  }
});

test.run();
