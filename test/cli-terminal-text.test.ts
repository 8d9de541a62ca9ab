import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent } from './helpers/http.js';
import { rawTty } from './helpers/raw-tty.js';

// Recorded text never drives the terminal: every output that reaches one (stdout or stderr,
// every command and format) shows C0/C1 controls, DEL and bidi overrides of data, meta and
// run ids as U+FFFD; the same output piped stays byte-exact (helpers/raw-tty.ts: the bytes).

// a window title, a colour, a one-byte CSI, DEL, a right-to-left override, an isolate, a lone CR
const HOSTILE = '\u001b]0;PWNED\u0007\u001b[31mred\u009b2J\u007f\u202erev\u2066x\r!';
const TS = '2026-03-17T22:00:00.000Z';
// the envelope as the daemon sends it (JSON.stringify escaped the C0 controls, not the rest) ...
const SENT = `{"seq":1,"ts":"${TS}","type":"inj","data":{"s":${JSON.stringify(HOSTILE)}},"meta":{"note":"\u009b31m"}}`;
// ... and as a terminal gets it
const SHOWN = `{"seq":1,"ts":"${TS}","type":"inj","data":{"s":"\\u001b]0;PWNED\\u0007\\u001b[31mred\uFFFD2J\uFFFD\uFFFDrev\uFFFDx\\r!"},"meta":{"note":"\uFFFD31m"}}`;
const CSV_HEAD = 'seq,ts,type,run_id,data.s\r\n';
const FRESH = '"freshness":{"inj":{"age_s":0,"max_age_s":null,"max_age_from":null,"stale":false}}';

test('history --csv/--json, current --json, post: neutralised on a terminal, byte-exact piped', async () => {
  await withTestDaemon({ clock: new ManualClock(TS) }, async (d) => {
    const at = ['--host', '127.0.0.1', '--port', String(d.port)];
    await postEvent(d.url, { type: 'inj', data: { s: HOSTILE }, meta: { note: '\u009b31m' } });
    // [name, args, stdout piped, the bytes on a terminal]
    const rows: Array<[string, string[], string, string]> = [
      ['history --csv', ['history', 'inj', '--csv'], `${CSV_HEAD}1,${TS},inj,,"${HOSTILE}"\r\n`,
        `${CSV_HEAD}1,${TS},inj,,"\uFFFD]0;PWNED\uFFFD\uFFFD[31mred\uFFFD2J\uFFFD\uFFFDrev\uFFFDx\uFFFD!"\r\n`],
      ['history --json', ['history', 'inj', '--json'], `${SENT}\n`, `${SHOWN}\n`],
      ['current TYPE --json', ['current', 'inj', '--json'], `${SENT}\n`, `${SHOWN}\n`],
      ['current --json', ['current', '--json'], `{"current":{"inj":${SENT}},${FRESH}}\n`, `{"current":{"inj":${SHOWN}},${FRESH}}\n`],
    ];
    for (const [name, args, piped, shown] of rows) {
      const pipe = await cli([...args, ...at]);
      assert.equal([pipe.code, pipe.stderr, pipe.stdout], [0, '', piped], `${name} piped`);
      const tty = await rawTty([...args, ...at]);
      assert.equal([tty.code, tty.bytes], [0, shown], `${name} on a terminal`);
    }
  });
});

test('post on a terminal; an error quoting a run id: on a terminal neutralised, piped exact', async () => {
  await withTestDaemon({ clock: new ManualClock(TS) }, async (d) => {
    const at = ['--host', '127.0.0.1', '--port', String(d.port)];
    const data = JSON.stringify({ s: HOSTILE });
    const posted = await rawTty(['post', 'inj', '--data', data, '--meta', '{"note":"\u009b31m"}', ...at]);
    assert.equal([posted.code, posted.bytes], [0, `${SHOWN}\n`]);
    const run = '\u009b31mR\u202e';
    const piped = await cli(['history', 'inj', '--run', run, ...at]);
    const tty = await rawTty(['history', 'inj', '--run', run, ...at], { pipeStdout: true });
    const message = (got: string) => `telemetry: run must be a run id (letters, digits, '.', '_', '-') or site; got "${got}" (INVALID_QUERY)\n`;
    assert.equal([piped.code, piped.stdout, piped.stderr], [1, '', message(run)]);
    assert.equal(tty.bytes, message('\uFFFD31mR\uFFFD'));
  });
});

test('TERM=dumb: no escape sequence at all in the current table and panel; NO_COLOR: marks without colour', async () => {
  const c = new ManualClock(TS);
  await withTestDaemon({ clock: c }, async (d) => {
    const at = ['--host', '127.0.0.1', '--port', String(d.port)];
    // no limit of its own (the daemon records no stale event); --max-age makes the panel's reading stale
    await postEvent(d.url, { type: 'weather', data: { temp_c: 4.5 } });
    c.advance(120_000);
    const table = (on: string, off: string) => `${on}  TYPE     AGE            SEQ  RUN  DATA${off}\n  weather  2m00s            1  -    temp_c=4.5\n`;
    const panel = (title: [string, string], stale: [string, string]) => `${title[0]}weather${title[1]}\n  seq   1\n`
      + `${stale[0]}  ts    ${TS} (2m00s ago, STALE)${stale[1]}\n  limit 60s (--max-age)\n  run   -\n  data  {\n          "temp_c": 4.5\n        }\n  meta  {}\n`
      + `telemetry: "weather" is stale: 120s old, max age 60s (--max-age) (seq 1, ts ${TS})\n`;
    const none: [string, string] = ['', ''];
    const bold: [string, string] = ['\u001b[1m', '\u001b[22m'];
    // [name, args, env, exit code, the bytes on a terminal]
    const rows: Array<[string, string[], Record<string, string>, number, string]> = [
      ['current, TERM=dumb', ['current'], { TERM: 'dumb' }, 0, table('', '')],
      ['current TYPE, TERM=dumb', ['current', 'weather', '--max-age', '60'], { TERM: 'dumb' }, 4, panel(none, none)],
      ['current TYPE, TERM=dumb and NO_COLOR', ['current', 'weather', '--max-age', '60'], { TERM: 'dumb', NO_COLOR: '1' }, 4, panel(none, none)],
      ['history TYPE, TERM=dumb', ['history', 'weather'], { TERM: 'dumb' }, 0, `TS                        SEQ  RUN  DATA\n${TS}    1  -    temp_c=4.5\n`],
      ['current, NO_COLOR', ['current'], { NO_COLOR: '1' }, 0, table(...bold)],
      ['current TYPE, NO_COLOR: bold, no colour', ['current', 'weather', '--max-age', '60'], { NO_COLOR: '1' }, 4, panel(bold, bold)],
      ['current TYPE, colour', ['current', 'weather', '--max-age', '60'], {}, 4, panel(bold, ['\u001b[33m', '\u001b[39m'])],
    ];
    for (const [name, args, env, code, shown] of rows) {
      const tty = await rawTty([...args, ...at], { env });
      assert.equal([tty.code, tty.bytes], [code, shown], name);
    }
  });
});

test.run();
