import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { displayWidth } from '../lib/display-width.js';
import { ManualClock } from './helpers/clock.js';
import { cli } from './helpers/cli.js';
import { withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// The night report's text fits 80 columns by DISPLAY width: a state named in wide (CJK)
// characters takes two columns a character, one with combining marks fewer columns than code
// points; a cell too wide is cut by the columns it takes, with …

const STATES = [
  '観測中の非常に長い状態の名前です観測中の非常に長い状態の名前です', // 32 wide characters: 64 columns
  `${'e\u0301'.repeat(30)}`, // 60 code points, 30 columns
  'observing',
];

test('night text: wide and combining state names cut by display width, every line within 80 columns', async () => {
  await withTestDaemon({ clock: new ManualClock('2026-11-23T12:00:00.000Z'), env: { TZ: 'UTC' } }, async (d) => {
    const lines = [
      { type: 'weather', ts: '2026-11-22T20:00:00Z', data: { temp: 1 } },
      ...STATES.map((dest, i) => ({ type: 'state', ts: `2026-11-22T20:00:${i + 1}0Z`, data: { source: 'a', dest } })),
      { type: 'weather', ts: '2026-11-22T20:01:00Z', data: { temp: 3 } },
    ].map((x) => JSON.stringify(x));
    assert.is((await request(d.url, '/events', { body: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
    const out = await cli(['night', '20261122', '--host', '127.0.0.1', '--port', String(d.port)]);
    assert.equal([out.code, out.stderr], [0, '']);
    const text = out.stdout.split('\n');
    const states = text.indexOf('POCS states');
    assert.equal(text.slice(states, states + 5), [
      'POCS states',
      `  ${'state'.padEnd(60)}     time  entered`,
      `  ${'observing'.padEnd(60)}  0:00:30        1`,
      `  ${'e\u0301'.repeat(30)}${' '.repeat(30)}  0:00:10        1`,
      '  観測中の非常に長い状態の名前です観測中の非常に長い状態の名…   0:00:10        1',
    ]);
    assert.equal(text.filter((l) => displayWidth(l) > 80), []);
  });
});

test.run();
