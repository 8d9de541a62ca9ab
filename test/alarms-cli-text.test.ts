import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';

// The alarm commands' texts through the real executable and daemon: `--for` read by the config
// file's parser of spans (no sign, compounds, plain seconds), a configured message with a
// newline or an ESC kept on one line and inert, and `by` counted in characters (code points).

const CONFIG = '[[alarm]]\nid = "wind"\nseverity = "serious"\nwhen = "weather.data.wind > 40"\nmessage = "wind\\nhigh \\u001b[31mred\\u0007"';
const SPAN = '--for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, more than 0 and at most 7d';

test('shelve --for: negatives refused (exit 2, nothing changes), the config grammar taken', () => withTestDaemon({ config: CONFIG }, async (d) => {
  const at = ['--host', '127.0.0.1', '--port', String(d.port), '--by', 'ops'];
  await postEvent(d.url, { type: 'weather', data: { wind: 45 } });
  const refused: [string[], string][] = [
    [['--for', '-5m'], `${SPAN}; got "-5m"`],
    [['--for=-5m'], `${SPAN}; got "-5m"`],
    [['--for', '-1s'], `${SPAN}; got "-1s"`],
    [['--for', '2w'], `${SPAN}; got "2w"`],
    [['--for', '0'], `${SPAN}; got "0"`],
    [['--for', '8d'], `${SPAN}; got "8d"`],
  ];
  for (const [args, message] of refused) {
    const got = await cli(['shelve', 'wind', ...args, ...at]);
    assert.equal(got, { code: 2, stdout: '', stderr: `telemetry: ${message} (see "telemetry shelve --help")\n` }, args.join(' '));
  }
  assert.is(JSON.parse((await request(d.url, '/alarms/wind')).text).state, 'unack');
  for (const [text, seconds] of [['1h30m', 5400], ['90', 90], ['250ms', 0.25], ['7d', 604_800]] as const) {
    const before = Date.now();
    const got = await cli(['shelve', 'wind', '--for', text, ...at]);
    const after = Date.now();
    assert.is(got.code, 0, text);
    const until = Date.parse(JSON.parse((await request(d.url, '/alarms/wind')).text).shelved_until);
    assert.ok(until >= before + seconds * 1000 && until <= after + seconds * 1000, `${text}: ${until - before} ms`);
  }
}));

test('a configured message with a newline, ESC and BEL: one line, the controls as U+FFFD, piped or not', () => withTestDaemon({ config: CONFIG }, async (d) => {
  const at = ['--host', '127.0.0.1', '--port', String(d.port)];
  await postEvent(d.url, { type: 'weather', data: { wind: 45 } });
  const since = JSON.parse((await request(d.url, '/alarms/wind')).text).since;
  const list = await cli(['alarms', ...at]);
  assert.equal(list, { code: 4, stdout: `SERIOUS  wind  unack since ${since}  value 45  wind high \uFFFD[31mred\uFFFD\n`, stderr: 'telemetry: 1 alarm not acknowledged: wind\n' });
  const ack = await cli(['ack', 'wind', '--by', 'night\u001b]0;x\u0007ops', ...at]);
  assert.is(ack.code, 1, 'a control character in by is refused by the daemon');
  const acked = await cli(['ack', 'wind', '--by', 'ops', ...at]);
  assert.match(acked.stdout, /^SERIOUS {2}wind {2}acked since \S+ {2}value 45 {2}wind high \uFFFD\[31mred\uFFFD {2}acked by ops at \S+\n$/);
  const json = await cli(['alarms', '--json', ...at]);
  assert.is(JSON.parse(json.stdout).alarms[0].message, 'wind\nhigh \u001b[31mred\u0007', '--json keeps the daemon\'s text');
}));

test('by: 64 characters counted as code points (64 emoji taken, 65 refused), through the CLI and the API', () => withTestDaemon({ config: CONFIG }, async (d) => {
  const at = ['--host', '127.0.0.1', '--port', String(d.port)];
  await postEvent(d.url, { type: 'weather', data: { wind: 45 } });
  const tooMany = '\u{1F52D}'.repeat(65);
  const refused = await cli(['ack', 'wind', '--by', tooMany, ...at]);
  assert.equal([refused.code, refused.stdout], [1, '']);
  assert.match(refused.stderr, /^telemetry: by must be a non-empty string of at most 64 characters without control characters \(who does this\); got /);
  const emoji = '\u{1F52D}'.repeat(64);
  const acked = await cli(['ack', 'wind', '--by', emoji, ...at]);
  assert.equal([acked.code, acked.stderr], [0, '']);
  assert.is(JSON.parse((await request(d.url, '/alarms/wind')).text).acked_by, emoji);
}));

test('ack without --by: USER, LOGNAME, USERNAME in that order (the console\'s rule too)', () => withTestDaemon({ config: CONFIG }, async (d) => {
  const at = ['--host', '127.0.0.1', '--port', String(d.port)];
  for (const [env, who] of [[{ USER: 'u1', LOGNAME: 'l1', USERNAME: 'n1' }, 'u1'], [{ USER: '', LOGNAME: 'l2', USERNAME: 'n2' }, 'l2'], [{ USER: '', LOGNAME: '', USERNAME: 'n3' }, 'n3']] as const) {
    await postEvent(d.url, { type: 'weather', data: { wind: 10 } });
    await postEvent(d.url, { type: 'weather', data: { wind: 45 } });
    const got = await cli(['ack', 'wind', ...at], { env: { ...env } });
    assert.is(got.code, 0, who);
    assert.is(JSON.parse((await request(d.url, '/alarms/wind')).text).acked_by, who);
  }
}));

test.run();
