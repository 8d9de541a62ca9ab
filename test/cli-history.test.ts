import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { cli } from './helpers/cli.js';
import { withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { Terminal } from './helpers/tmux.js';

// `telemetry history TYPE` against the real daemon: NDJSON piped, CSV, a table on a terminal
// (tmux), the time and run options, and the usage mistakes.

const clock = () => new ManualClock('2026-03-17T22:00:00.000Z');

/** weather twice on the site, once in run 042 (with a nested field), dome once; an hour apart. */
async function record(d: TestDaemon, c: ManualClock): Promise<void> {
  await postEvent(d.url, { type: 'weather', data: { temp_c: 4.5, wind: 'calm, "gusty"' } });
  c.advance(3_600_000);
  await postEvent(d.url, { type: 'dome', data: 'open' });
  await request(d.url, '/run/start', { body: { run_id: '042' } });
  await postEvent(d.url, { type: 'weather', data: { temp_c: 3.25, sky: { clouds: 2 } } });
  await request(d.url, '/run/stop', { method: 'POST' });
  c.advance(3_600_000);
  await postEvent(d.url, { type: 'weather', data: -1 });
}

test('piped: one JSON line per event of the type, in record order; --since, --from/--to and --run narrow it', async () => {
  const c = clock();
  await withTestDaemon({ clock: c }, async (d) => {
    await record(d, c);
    const at = ['--host', '127.0.0.1', '--port', String(d.port)];
    const expected = (await request(d.url, '/history?type=weather')).json.events.map((e: unknown) => JSON.stringify(e));
    const all = await cli(['history', 'weather', ...at]);
    assert.equal([all.code, all.stderr, all.stdout], [0, '', `${expected.join('\n')}\n`]);
    const recent = await cli(['history', 'weather', '--since', '90m', ...at]);
    assert.equal(recent.stdout.trim().split('\n').map((l) => JSON.parse(l).data.temp_c ?? JSON.parse(l).data), [3.25, -1]);
    const window = await cli(['history', 'weather', '--from', '2026-03-17T22:30:00Z', '--to', '2026-03-18T00:00:00Z', ...at]);
    assert.equal(window.stdout.trim().split('\n').map((l) => JSON.parse(l).seq), [1]);
    // relative: 3h ago up to 30m ago (the daemon's clock is at 00:00)
    const relative = await cli(['history', 'weather', '--from', '3h', '--to=-30m', ...at]);
    assert.equal(relative.stdout.trim().split('\n').map((l) => JSON.parse(l).ts), ['2026-03-17T22:00:00.000Z', '2026-03-17T23:00:00.000Z']);
    const run = await cli(['history', 'weather', '--run', '042', ...at]);
    assert.equal(run.stdout.trim().split('\n').map((l) => JSON.parse(l).meta.run_id), ['042']);
    const site = await cli(['history', 'weather', '--run', 'site', ...at]);
    assert.equal(site.stdout.trim().split('\n').map((l) => JSON.parse(l).seq), [1, 3]);
  });
});

test('--csv: seq, ts, type, run_id, then one column per data field (nested fields dotted), quoted as RFC 4180 says', async () => {
  const c = clock();
  await withTestDaemon({ clock: c }, async (d) => {
    await record(d, c);
    const csv = await cli(['history', 'weather', '--csv', '--host', '127.0.0.1', '--port', String(d.port)]);
    assert.is(csv.code, 0, csv.stderr);
    assert.is(csv.stdout, [
      'seq,ts,type,run_id,data.temp_c,data.wind,data.sky.clouds,data',
      '1,2026-03-17T22:00:00.000Z,weather,,4.5,"calm, ""gusty""",,',
      '1,2026-03-17T23:00:00.000Z,weather,042,3.25,,2,',
      '3,2026-03-18T00:00:00.000Z,weather,,,,,-1',
      '',
    ].join('\r\n'));
  });
});

test('--csv: a key that is empty or holds "." or a quote is quoted in its column name: no two fields share a column, no value is dropped', async () => {
  const c = clock();
  await withTestDaemon({ clock: c }, async (d) => {
    // [name, data as sent, the header's data columns (as CSV spells them), the row's data cells]
    const rows: Array<[string, string, string, string]> = [
      ['a dotted key beside the nested path', '{"a.b":1.50,"a":{"b":-2.0}}', '"data.""a.b""",data.a.b', '1.50,-2.0'],
      ['the nested path first', '{"a":{"b":-2.0},"a.b":1.50}', 'data.a.b,"data.""a.b"""', '-2.0,1.50'],
      ['a quote in a key', '{"a\\"b":1,"a":{"\\"b":2}}', '"data.""a""""b""","data.a.""""""b"""', '1,2'],
      ['a key spelled as a quoted one', '{"\\"a.b\\"":3,"a.b":4}', '"data.""""""a.b""""""","data.""a.b"""', '3,4'],
      ['an empty key beside data.x', '{"":5,"x":{"":6}}', '"data.""""","data.x."""""', '5,6'],
      ['plain keys stay bare', '{"x":{"y":7},"z_1":8}', 'data.x.y,data.z_1', '7,8'],
    ];
    for (const [i, [name, data]] of rows.entries()) {
      const answer = await request(d.url, '/event', { body: `{"type":"cv${i}","data":${data}}`, headers: { 'content-type': 'application/json' } });
      assert.is(answer.status, 200, `${name}: ${answer.text}`);
    }
    for (const [i, [name, , header, cells]] of rows.entries()) {
      const csv = await cli(['history', `cv${i}`, '--csv', '--host', '127.0.0.1', '--port', String(d.port)]);
      assert.equal([csv.code, csv.stderr, csv.stdout],
        [0, '', `seq,ts,type,run_id,${header}\r\n${i + 1},2026-03-17T22:00:00.000Z,cv${i},,${cells}\r\n`], name);
    }
  });
});

test('on a terminal: a table of ts, seq, run and a data summary', async () => {
  const c = clock();
  await withTestDaemon({ clock: c }, async (d) => {
    await record(d, c);
    const tty = new Terminal();
    try {
      tty.run(['history', 'weather', '--host', '127.0.0.1', '--port', String(d.port)], { width: 80 });
      assert.equal(await tty.output(), {
        lines: [
          'TS                        SEQ  RUN  DATA',
          '2026-03-17T22:00:00.000Z    1  -    temp_c=4.5 wind="calm, \\"gusty\\""',
          '2026-03-17T23:00:00.000Z    1  042  temp_c=3.25 sky={"clouds":2}',
          '2026-03-18T00:00:00.000Z    3  -    -1',
        ],
        exit: 0, restored: true,
      });
    } finally {
      tty.kill();
    }
  });
});

// [name, args, exit, stderr]
const MISTAKES: [string, string[], number, string][] = [
  ['no type', ['history'], 2, 'telemetry: TYPE is required: the event type whose history to print (see "telemetry history --help")\n'],
  ['a bad --since', ['history', 'x', '--since', 'yesterday'], 2, 'telemetry: --since must be a duration such as 30m, 2h, 1d (s, m, h, d, w); got "yesterday" (see "telemetry history --help")\n'],
  ['--since with --from', ['history', 'x', '--since', '2h', '--from=-3h'], 2, 'telemetry: --since and --from cannot be used together (see "telemetry history --help")\n'],
  ['--json with --csv', ['history', 'x', '--json', '--csv'], 2, 'telemetry: --json and --csv cannot be used together (see "telemetry history --help")\n'],
  ['a bad --from', ['history', 'x', '--from', 'dawn'], 2, 'telemetry: --from must be a time such as 2026-03-17T22:00 (local), 2026-03-17T21:00Z, or -2h; got "dawn" (see "telemetry history --help")\n'],
  ['--from with an impossible offset', ['history', 'x', '--from', '2026-03-18T00:00+24:00'], 2, 'telemetry: --from must be a time such as 2026-03-17T22:00 (local), 2026-03-17T21:00Z, or -2h; got "2026-03-18T00:00+24:00" (see "telemetry history --help")\n'],
  ['--from with an ISO week date', ['history', 'x', '--from', '2026-W12-3T00:00Z'], 2, 'telemetry: --from must be a time such as 2026-03-17T22:00 (local), 2026-03-17T21:00Z, or -2h; got "2026-W12-3T00:00Z" (see "telemetry history --help")\n'],
  ['--from with a local ordinal date', ['history', 'x', '--from', '2026-077'], 2, 'telemetry: --from must be a time such as 2026-03-17T22:00 (local), 2026-03-17T21:00Z, or -2h; got "2026-077" (see "telemetry history --help")\n'],
  ['--from with a day that does not exist', ['history', 'x', '--from', '2026-02-30T00:00Z'], 2, 'telemetry: --from must be a time such as 2026-03-17T22:00 (local), 2026-03-17T21:00Z, or -2h; got "2026-02-30T00:00Z" (see "telemetry history --help")\n'],
  ['--from with hour 24, local', ['history', 'x', '--from', '2026-03-18T24:00'], 2, 'telemetry: --from must be a time such as 2026-03-17T22:00 (local), 2026-03-17T21:00Z, or -2h; got "2026-03-18T24:00" (see "telemetry history --help")\n'],
  ['a run never recorded', ['history', 'x', '--run', 'r9'], 1, 'telemetry: run r9 is not in the timeline of this site directory (runs recorded before it existed are not either) (INVALID_QUERY)\n'],
];

test('mistakes: a usage error is exit 2 with a one-line reason; what the daemon refuses is exit 1', () => withTestDaemon({}, async (d) => {
  for (const [name, args, exit, stderr] of MISTAKES) {
    const run = await cli([...args, '--host', '127.0.0.1', '--port', String(d.port)]);
    assert.equal([run.code, run.stderr, run.stdout], [exit, stderr, ''], name);
  }
}));

test.run();
