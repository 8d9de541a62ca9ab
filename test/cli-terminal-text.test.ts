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
const FRESH = '"freshness":{"inj":{"age_s":0,"max_age_s":null,"stale":false}}';

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

test.run();
