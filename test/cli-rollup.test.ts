import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient } from '../client/client.js';
import { ManualClock } from './helpers/clock.js';
import { cli } from './helpers/cli.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { Terminal } from './helpers/tmux.js';

// Rollups from the command line and the client: `telemetry history TYPE --step` (the daemon's
// JSON piped, a table on a terminal), `telemetry rollup rebuild`, client.rollup()/rollupText()/
// rebuildRollups(), and the usage mistakes.

const NOW = '2026-06-01T12:00:00.000Z';

async function record(d: TestDaemon): Promise<void> {
  const lines = [
    '{"type":"weather","ts":"2026-06-01T10:00:10.000Z","data":{"temp":1.50,"wind":{"speed":3}}}',
    '{"type":"weather","ts":"2026-06-01T10:00:40.000Z","data":{"temp":2.25e0}}',
    '{"type":"weather","ts":"2026-06-01T10:20:00.000Z","data":{"temp":-4,"wind":{"speed":7.0}}}',
  ];
  assert.is((await request(d.url, '/events', { body: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
}

test('history --step: the daemon\'s JSON piped (numbers as recorded), a table on a terminal', async () => {
  await withTestDaemon({ clock: new ManualClock(NOW) }, async (d) => {
    await record(d);
    const at = ['--host', '127.0.0.1', '--port', String(d.port)];
    const query = '/history?type=weather&step=15m&from=2026-06-01T10:00:00Z&to=2026-06-01T11:00:00Z';
    const piped = await cli(['history', 'weather', '--step', '15m', '--from', '2026-06-01T10:00:00Z', '--to', '2026-06-01T11:00:00Z', ...at]);
    assert.equal([piped.code, piped.stderr, piped.stdout], [0, '', `${(await request(d.url, query)).text}\n`]);
    assert.match(piped.stdout, '"first":1.50,"last":2.25e0,"min":1.50,"max":2.25e0,"count":2');
    const tty = new Terminal();
    try {
      tty.run(['history', 'weather', '--step', '15m', '--from', '2026-06-01T10:00:00Z', '--to', '2026-06-01T11:00:00Z', ...at], { width: 80 });
      assert.equal(await tty.output(), {
        lines: [
          'START (UTC)        FIELD            COUNT   MIN   MEAN     TWMEAN     MAX  GAP_S',
          '2026-06-01T10:00Z  data.temp            2  1.50  1.875   ~2.22472  2.25e0     10',
          '2026-06-01T10:00Z  data.wind.speed      1     3      3          3       3     10',
          '2026-06-01T10:15Z  data.temp            1    -4     -4  ~-1.91667      -4      0',
          '2026-06-01T10:15Z  data.wind.speed      1   7.0      7   ~5.66667     7.0      0',
        ],
        exit: 0, restored: true,
      });
    } finally {
      tty.kill();
    }
  });
});

// large values, long spellings and a field named in wide characters, on an 80-column terminal
// for each step (night included): every line within 80 display columns, rounded values marked ~
const WIDE = [
  '{"type":"big","ts":"2026-06-01T10:00:10.000Z","data":{"v":398248000000000000,"温度の長い名前のフィールド":-0.000123456789}}',
  '{"type":"big","ts":"2026-06-01T10:00:40.000Z","data":{"v":398248000000000001,"温度の長い名前のフィールド":0.5}}',
  '{"type":"far","ts":"2026-06-01T10:00:10.000Z","data":{"far":1.2345678901234567e300}}',
  '{"type":"far","ts":"2026-06-01T10:00:40.000Z","data":{"far":-9.876543210987654e299}}',
];

test('history --step on an 80-column terminal: every step fits, large values rounded and marked ~, wide names cut by display width', async () => {
  await withTestDaemon({ clock: new ManualClock(NOW), env: { TZ: 'UTC' } }, async (d) => {
    assert.is((await request(d.url, '/events', { body: WIDE.join('\n'), headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
    const at = ['--host', '127.0.0.1', '--port', String(d.port), '--from', '2026-05-31T12:00:00Z', '--to', '2026-06-01T12:00:00Z'];
    const rows: [string, string, string[]][] = [
      ['big', '1m', [
        'START (UTC)       FIELD COUNT         MIN       MEAN     TWMEAN        MAX GAP_S',
        '2026-06-01T10:00Z v         2  ~3.9825e17 ~3.9825e17 ~3.9825e17 ~3.9825e17    10',
        '2026-06-01T10:00Z 温度…     2 ~-1.2346e-4   ~0.24994   ~0.19993        0.5    10',
      ]],
      ['big', '1h', [
        'START (UTC)       FIELD COUNT         MIN       MEAN     TWMEAN        MAX GAP_S',
        '2026-06-01T10:00Z v         2  ~3.9825e17 ~3.9825e17 ~3.9825e17 ~3.9825e17    10',
        '2026-06-01T10:00Z 温度…     2 ~-1.2346e-4   ~0.24994   ~0.49582        0.5    10',
      ]],
      ['big', 'night', [
        'START (UTC)       FIELD COUNT         MIN       MEAN     TWMEAN        MAX GAP_S',
        '2026-05-31T12:00Z v         2  ~3.9825e17 ~3.9825e17 ~3.9825e17 ~3.9825e17 79210',
        '2026-05-31T12:00Z 温度…     2 ~-1.2346e-4   ~0.24994   ~0.49791        0.5 79210',
      ]],
      ['far', '15m', [
        'START (UTC)       FIELD    COUNT        MIN      MEAN     TWMEAN       MAX GAP_S',
        '2026-06-01T10:00Z data.far     2 ~-9.88e299 ~1.23e299 ~-9.13e299 ~1.23e300    10',
      ]],
    ];
    const shown: [string, string, string[]][] = [];
    for (const [type, step] of rows) {
      const tty = new Terminal();
      try {
        tty.run(['history', type, '--step', step, ...at], { width: 80 });
        const out = await tty.output();
        assert.equal([out.exit, out.restored], [0, true], step);
        shown.push([type, step, out.lines]);
      } finally {
        tty.kill();
      }
    }
    assert.equal(shown, rows);
  });
});

// numbers at a double's edges: shown exactly (as recorded, or the shortest round-trip form),
// never -0 as 0, 5e-324 as 4.94e-324 nor 1.7976931348623157e308 as 1.8e308 (that is Infinity)
const EDGES = [
  '{"type":"edge","ts":"2026-06-01T10:00:10.000Z","data":{"z":-0,"tiny":5e-324,"huge":1.7976931348623157e308}}',
  '{"type":"edge","ts":"2026-06-01T10:00:40.000Z","data":{"z":-0.0,"tiny":5e-324,"huge":1.7976931348623157e308}}',
];

test('history --step: numbers at a double\'s edges exact at 140 columns; at 80 and 60 rounded toward zero and marked ~', async () => {
  await withTestDaemon({ clock: new ManualClock(NOW), env: { TZ: 'UTC' } }, async (d) => {
    assert.is((await request(d.url, '/events', { body: EDGES.join('\n'), headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
    const at = ['--host', '127.0.0.1', '--port', String(d.port), '--from', '2026-06-01T10:00:00Z', '--to', '2026-06-01T10:01:00Z'];
    const rows: [number, string[]][] = [
      [140, [
        'START (UTC)        FIELD      COUNT                     MIN                    MEAN                  TWMEAN                     MAX  GAP_S',
        '2026-06-01T10:00Z  data.huge      2  1.7976931348623157e308  1.7976931348623157e308  1.7976931348623157e308  1.7976931348623157e308     10',
        '2026-06-01T10:00Z  data.tiny      2                  5e-324                  5e-324                  5e-324                  5e-324     10',
        '2026-06-01T10:00Z  data.z         2                      -0                       0                       0                      -0     10',
      ]],
      [80, [
        'START (UTC)       FIELD COUNT        MIN       MEAN     TWMEAN        MAX GAP_S',
        '2026-06-01T10:00Z huge      2 ~1.797e308 ~1.797e308 ~1.797e308 ~1.797e308    10',
        '2026-06-01T10:00Z tiny      2     5e-324     5e-324     5e-324     5e-324    10',
        '2026-06-01T10:00Z z         2         -0          0          0         -0    10',
      ]],
      [60, [
        'START (UTC)       FIELD COUNT       MIN      MEAN    TWMEAN…',
        '2026-06-01T10:00Z huge      2 ~1.79e308 ~1.79e308 ~1.79e308…',
        '2026-06-01T10:00Z tiny      2    5e-324    5e-324    5e-324…',
        '2026-06-01T10:00Z z         2        -0         0         0…',
      ]],
    ];
    const shown: [number, string[]][] = [];
    for (const [width] of rows) {
      const tty = new Terminal();
      try {
        tty.run(['history', 'edge', '--step', '1m', ...at], { width });
        const out = await tty.output();
        assert.equal([out.exit, out.restored], [0, true], String(width));
        shown.push([width, out.lines]);
      } finally {
        tty.kill();
      }
    }
    assert.equal(shown, rows);
  });
});

test('rollup rebuild: waits for the rebuild and says so; the client\'s methods', async () => {
  await withTestDaemon({ clock: new ManualClock(NOW) }, async (d) => {
    await record(d);
    const at = ['--host', '127.0.0.1', '--port', String(d.port)];
    const done = await cli(['rollup', 'rebuild', ...at]);
    assert.equal([done.code, done.stderr, done.stdout], [0, '', `rollups rebuilt from the recorded files at 127.0.0.1:${d.port}\n`]);
    const json = await cli(['rollup', 'rebuild', '--json', ...at]);
    assert.equal([json.code, json.stdout], [0, '{"rebuilt":true,"late":0}\n']);
    const status = await cli(['status', ...at]);
    assert.is(status.stdout.split('\n').slice(1).join('\n'), `rollups ok  last rebuild ${new Date(NOW).toISOString()} (asked for (POST /rollups/rebuild))\n`);
    const client = new TelemetryClient({ baseUrl: d.url, env: {} });
    try {
      const options = { step: '1h', fields: ['data.wind.speed'], from: '2026-06-01T10:00:00Z', to: '2026-06-01T11:00:00Z' } as const;
      const answer = await client.rollup('weather', options);
      assert.equal(answer, {
        type: 'weather', step: '1h', from: '2026-06-01T10:00:00.000Z', to: '2026-06-01T11:00:00.000Z', fields: ['data.wind.speed'],
        buckets: [{ start: '2026-06-01T10:00:00.000Z', end: '2026-06-01T11:00:00.000Z',
          fields: { 'data.wind.speed': { first: 3, last: 7, min: 3, max: 7, count: 2, mean: 5, twmean: (3 * 1190 + 7 * 2400) / 3590, gap_s: 10 } } }],
      });
      const { text } = await client.rollupText('weather', options);
      assert.match(text, '"first":3,"last":7.0,"min":3,"max":7.0,');
      assert.equal(await client.rebuildRollups(), { rebuilt: true, late: 0 });
      assert.is((await client.rollup('weather', { width: 2, from: '2026-06-01T10:00:00Z', to: '2026-06-01T11:00:00Z' })).step, '15m');
    } finally {
      client.close();
    }
  });
});

// [name, args, exit, stderr]
const MISTAKES: [string, string[], number, string][] = [
  ['a bad --step', ['history', 'x', '--step', '2m'], 2, 'telemetry: --step must be auto, 1m, 15m, 1h or night; got "2m" (see "telemetry history --help")\n'],
  ['--width without auto', ['history', 'x', '--step', '1h', '--width', '5'], 2, 'telemetry: --width is taken only with --step auto (see "telemetry history --help")\n'],
  ['--width not a number', ['history', 'x', '--step', 'auto', '--width', 'wide'], 2, 'telemetry: --width must be a whole number from 1 to 10000; got "wide" (see "telemetry history --help")\n'],
  ['--width without --step', ['history', 'x', '--width', '5'], 2, 'telemetry: --width is taken only with --step (see "telemetry history --help")\n'],
  ['--fields without --step', ['history', 'x', '--fields', 'data.a'], 2, 'telemetry: --fields is taken only with --step (see "telemetry history --help")\n'],
  ['--csv with --step', ['history', 'x', '--step', '1h', '--csv'], 2, 'telemetry: --csv cannot be used with --step (use --json) (see "telemetry history --help")\n'],
  ['--run with --step', ['history', 'x', '--step', '1h', '--run', '001'], 2, 'telemetry: --run cannot be used with --step: rollups hold every run and the site (see "telemetry history --help")\n'],
  ['a bad field', ['history', 'x', '--step', '1h', '--fields', 'temp'], 1, 'telemetry: fields must be a comma-separated list of data fields such as data.temp,data.wind.speed; got "temp" (INVALID_QUERY)\n'],
  ['rollup without an action', ['rollup'], 2, 'telemetry: ACTION is required: rebuild (see "telemetry rollup --help")\n'],
  ['rollup with another action', ['rollup', 'drop'], 2, 'telemetry: unknown action "drop"; the one action is rebuild (see "telemetry rollup --help")\n'],
];

test('mistakes: a usage error is exit 2 with a one-line reason; what the daemon refuses is exit 1', () => withTestDaemon({}, async (d) => {
  for (const [name, args, exit, stderr] of MISTAKES) {
    const run = await cli([...args, '--host', '127.0.0.1', '--port', String(d.port)]);
    assert.equal([run.code, run.stderr, run.stdout], [exit, stderr, ''], name);
  }
}));

test.run();
