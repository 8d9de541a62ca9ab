import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { type TestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { Terminal } from './helpers/tmux.js';

// `telemetry current [TYPE]` through the built executable: piped it prints exactly the API's
// body; on a terminal (tmux) a table or a panel, in colour unless NO_COLOR; --follow on a
// terminal opens the live console.

function withDaemon(fn: (d: TestDaemon, at: string[], clock: ManualClock) => Promise<void>, maxAge?: string): Promise<void> {
  const clock = new ManualClock('2026-03-17T20:00:00.000Z');
  return withTestDaemon({ clock, flags: { maxAge }, freshnessIntervalMs: 0 }, (d) => fn(d, ['--host', '127.0.0.1', '--port', String(d.port)], clock));
}

test('piped or --json: exactly the body of GET /current?freshness=true or /current/{type}, then a newline', async () => {
  await withDaemon(async (d, at) => {
    assert.equal(await cli(['current', ...at]), { code: 0, stdout: '{"current":{},"freshness":{}}\n', stderr: '' }, 'empty view');
    await postEvent(d.url, { type: 'weather', data: { temp_c: 4.5, humidity: 71, note: 'fog\u0001 "thick"' } });
    await postEvent(d.url, { type: 'dome status', data: { shutter: 'open' }, meta: { by: 'ops' } });
    await postEvent(d.url, { type: 'Ωmega', data: [1, 2.5e-7, null, true] });
    await postEvent(d.url, { type: 'weather', data: 'not current', make_current: false });
    const rows: Array<[string, string[], string]> = [
      ['current', ['current'], '/current?freshness=true'],
      ['current --json', ['current', '--json'], '/current?freshness=true'],
      ['one type', ['current', 'weather'], '/current/weather'],
      ['a type with a space', ['current', 'dome status', '--json'], '/current/dome%20status'],
      ['a unicode type', ['current', 'Ωmega'], `/current/${encodeURIComponent('Ωmega')}`],
    ];
    for (const [name, args, path] of rows) {
      const body = (await request(d.url, path)).text;
      assert.equal(await cli([...args, ...at]), { code: 0, stdout: `${body}\n`, stderr: '' }, name);
    }
    const meridian = await cli(['telemetry', 'current', 'weather', ...at], { bin: 'meridian' });
    assert.is(meridian.stdout, `${(await request(d.url, '/current/weather')).text}\n`);
    assert.is(JSON.parse(meridian.stdout).data.note, 'fog\u0001 "thick"');

    assert.equal(await cli(['current', 'nope', ...at]),
      { code: 1, stdout: '', stderr: 'telemetry: there is no current reading of type "nope" (NO_READING)\n' }, 'no reading: exit 1');
    assert.equal(await cli(['telemetry', 'current', 'dome', ...at], { bin: 'meridian' }),
      { code: 1, stdout: '', stderr: 'meridian: there is no current reading of type "dome" (NO_READING)\n' }, 'no reading (meridian)');
  });
});

test('on a terminal: a table of the view (the daemon ages, stale and missing types on top), one reading as a panel; colour unless NO_COLOR', async () => {
  await withDaemon(async (d, at, clock) => {
    await postEvent(d.url, { type: 'weather', data: { temp_c: 4.5, humidity: 71 } });
    await postEvent(d.url, { type: 'dome status', data: { shutter: 'open' } });
    await request(d.url, '/run/start', { method: 'POST', body: { run_id: '042' } });
    clock.advance(65_000);
    const ups = (await postEvent(d.url, { type: 'ups', data: true, meta: { source: 'apc' } })).json;
    clock.advance(3_000);

    const table = new Terminal();
    const panel = new Terminal();
    try {
      table.run(['current', ...at]);
      panel.run(['current', 'ups', ...at]);
      const t = await table.output();
      const p = await panel.output();
      assert.is(t.exit, 0);
      assert.equal(t.lines, [
        '  TYPE         AGE            SEQ  RUN  DATA',
        '  dome status  1m08s STALE      2  -    shutter=open',
        '  power        MISSING          -  -    (no reading)',
        '  ups          3s               1  042  true',
        '  weather      1m08s            1  -    temp_c=4.5 humidity=71',
      ]);
      assert.is(p.exit, 0);
      assert.equal(p.lines, [
        'ups',
        '  seq   1',
        `  ts    ${ups.ts} (3s ago)`,
        '  run   042',
        '  data  true',
        '  meta  {',
        '          "source": "apc",',
        '          "run_id": "042"',
        '        }',
      ]);
      assert.match(table.screen(true), /^\x1b\[1m {2}TYPE/, 'the header is bold');
      assert.match(table.screen(true), /\x1b\[33m(?:\x1b\[\d+m)* {2}dome status/, 'stale rows are yellow');
      assert.match(panel.screen(true), /\x1b\[1mups/, 'the title is bold');
    } finally {
      table.kill();
      panel.kill();
    }

    const stale = new Terminal();
    const plain = new Terminal();
    try {
      stale.run(['current', '--max-age', '2', ...at]);
      plain.run(['current', '--stale', '2', ...at], { env: { NO_COLOR: '1' } });
      const s = await stale.output();
      assert.equal(s.lines.slice(1), [
        '  dome status  1m08s STALE      2  -    shutter=open',
        '  power        MISSING          -  -    (no reading)',
        '  ups          3s STALE         1  042  true',
        '  weather      1m08s STALE      1  -    temp_c=4.5 humidity=71',
      ], '--max-age: one limit for every type');
      const p = await plain.output();
      assert.equal(p.lines, s.lines, '--stale is the old name of --max-age');
      assert.not.match(plain.screen(true), /\x1b\[(?:[0-9;]*;)?(?:3[0-7]|4[0-7]|38;5;\d+|48;5;\d+)[;m]/, 'NO_COLOR: no colour codes');
      assert.is(plain.screen(true).split('\n').filter((l) => l.startsWith('\x1b[1m')).length, 1, 'NO_COLOR: the header, then the stale rows, in bold');
    } finally {
      stale.kill();
      plain.kill();
    }

    await request(d.url, '/run/stop', { method: 'POST' });
    const json = new Terminal();
    try {
      json.run(['current', 'dome status', '--json', ...at], { width: 200 });
      const j = await json.output();
      assert.equal(j.lines, [(await request(d.url, '/current/dome%20status')).text], '--json on a terminal');
    } finally {
      json.kill();
    }
  }, 'dome status=60,power=90');

  await withDaemon(async (_none, at) => {
    const empty = new Terminal();
    try {
      empty.run(['current', ...at]);
      assert.equal(await empty.output(), { lines: ['no readings yet'], exit: 0, restored: true });
    } finally {
      empty.kill();
    }
  });
});

test('current --follow on a terminal opens the live console; q quits with exit 0. With --json it prints lines instead', async () => {
  await withDaemon(async (d, at) => {
    await postEvent(d.url, { type: 'weather', data: { temp_c: 4.5 } });
    const tty = new Terminal();
    const lines = new Terminal();
    try {
      tty.run(['current', '--follow', '--interval', '0.2', ...at], { width: 80, height: 24 });
      const screen = await tty.waitFor('the console', (s) => /│ {3}weather {2}/.test(s));
      assert.match(screen, new RegExp(`^meridian 127\\.0\\.0\\.1:${d.port} {2}LIVE {2}updated \\d\\d:\\d\\d:\\d\\dZ`));
      assert.match(screen, /run site {2}1 type {2}poll 200ms {2}sort type/);
      tty.keys('q');
      assert.equal(await tty.output(), { lines: [], exit: 0, restored: true }, 'the screen and the terminal are restored and the command exits 0');

      lines.run(['current', 'weather', '--follow', '--json', ...at], { width: 200 });
      const body = (await request(d.url, '/current/weather')).text;
      await lines.waitFor('one JSON line', (s) => s.split('\n')[0] === body);
      lines.keys('C-c');
      const out = await lines.output();
      assert.equal(out, { lines: [body], exit: 0, restored: true }, 'Ctrl-C ends it with exit 0');
    } finally {
      tty.kill();
      lines.kill();
    }
  });
});

test.run();
