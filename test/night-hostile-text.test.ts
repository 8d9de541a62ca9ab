import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { cli } from './helpers/cli.js';
import { withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The night report's outputs with means near a double's range (finite since the sums are
// scaled: docs/reports.md) and recorded text a terminal would obey: text, --md and --html
// print them, and no control, bidi override or line break of a state, a field or a run reaches the output.

const EVIL = ['\u001b[2J\u001b[31mPWNED\u0007', 'observing\r\nFAKE LINE | 999', '\u202eevil'];

test('night text, --md, --html: a mean near 1.8e308, recorded controls and line breaks as U+FFFD', async () => {
  await withTestDaemon({ clock: new ManualClock('2026-11-23T12:00:00.000Z'), env: { TZ: 'UTC' } }, async (d) => {
    const lines = [
      { type: 'weather', ts: '2026-11-22T20:00:00Z', data: { temp: 1.7976931348623157e308, '\u001b[2Jx': 1 } },
      ...EVIL.map((dest, i) => ({ type: 'state', ts: `2026-11-22T20:00:${i + 1}0Z`, data: { source: 'a', dest } })),
      { type: 'weather', ts: '2026-11-22T20:01:00Z', data: { temp: 1.7976931348623157e308, '\u001b[2Jx': 3 } },
    ].map((x) => JSON.stringify(x));
    assert.is((await request(d.url, '/events', { body: lines.join('\n'), headers: { 'content-type': 'application/x-ndjson' } })).status, 200);
    const json = await request(d.url, '/reports/night/20261122');
    assert.is((json.json as { weather: { fields: Record<string, { mean: number | null }> } }).weather.fields.temp!.mean, 1.7976931348623157e308);
    const at = ['--host', '127.0.0.1', '--port', String(d.port)];
    const dir = tempDir();
    try {
      const file = path.join(dir, 'n.html');
      for (const args of [['night', '20261122'], ['night', '20261122', '--md'], ['night', '20261122', '--html', file]]) {
        const out = await cli([...args, ...at]);
        assert.equal([out.code, out.stderr], [0, args.includes('--html') ? `telemetry: wrote ${file}\n` : ''], args.join(' '));
        const text = args.includes('--html') ? fs.readFileSync(file, 'utf8') : out.stdout;
        assert.not.match(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, args.join(' '));
        assert.not.match(text, /\nFAKE LINE/, args.join(' '));
      }
      const text = (await cli(['night', '20261122', ...at])).stdout.split('\n');
      assert.ok(text.includes('  \uFFFD[2Jx                       1             2                        3         2'), text.join('\n'));
      const states = text.indexOf('POCS states');
      assert.equal(text.slice(states, states + 5), ['POCS states', '  state                          time  entered',
        '  \uFFFDevil                       0:00:30        1',
        '  \uFFFD[2J\uFFFD[31mPWNED\uFFFD             0:00:10        1',
        '  observing\uFFFD\uFFFDFAKE LINE | 999  0:00:10        1',
      ]);
      // a number too wide for its column is written with the digits that fit, never cut (cut toward zero at a double's edge)
      assert.ok(text.includes('  temp    1.797693134862315e308  1.79769e+308  1.7976931348623157e+308         2'), text.join('\n'));
    } finally {
      removeDir(dir);
    }
  });
});

test.run();
