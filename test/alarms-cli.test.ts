import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent } from './helpers/http.js';

// The alarm commands' mistakes and answers through the real executable: one line on stderr,
// the documented exit code (0 done, 1 the daemon refused, 2 usage, 3 no daemon, 4 waiting).

const CONFIG = '[[alarm]]\nid = "wind"\nseverity = "serious"\nwhen = "weather.data.wind > 40"\nmessage = "wind high"';

test('alarm commands: usage mistakes exit 2, refusals exit 1, no daemon exit 3, an alarm waiting exit 4', () => withTestDaemon({ config: CONFIG }, async (d) => {
  const at = ['--host', '127.0.0.1', '--port', String(d.port)];
  const rows: [string, string[], number, string | RegExp, string | RegExp][] = [
    ['ack without an id', ['ack', ...at], 2, '', 'telemetry: missing ID (the alarm\'s id: telemetry ack wind) (see "telemetry ack --help")\n'],
    ['shelve without --for', ['shelve', 'wind', ...at], 2, '', 'telemetry: --for is required (how long: --for 30m, --for 2h; at most 7d) (see "telemetry shelve --help")\n'],
    // the true range, one source with the daemon's bound (hostile tester I: 0s said 1s-36500d), in the config file's grammar (hostile tester M: -5m shelved for 5m)
    ['shelve for 8 days', ['shelve', 'wind', '--for', '8d', ...at], 2, '', 'telemetry: --for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, more than 0 and at most 7d; got "8d" (see "telemetry shelve --help")\n'],
    ['shelve for 0s', ['shelve', 'wind', '--for', '0s', ...at], 2, '', 'telemetry: --for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, more than 0 and at most 7d; got "0s" (see "telemetry shelve --help")\n'],
    ['shelve for a second past 7d', ['shelve', 'wind', '--for', '604801s', ...at], 2, '', 'telemetry: --for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, more than 0 and at most 7d; got "604801s" (see "telemetry shelve --help")\n'],
    ['shelve for 2 weeks', ['shelve', 'wind', '--for', '2w', ...at], 2, '', 'telemetry: --for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, more than 0 and at most 7d; got "2w" (see "telemetry shelve --help")\n'],
    ['shelve for "soon"', ['shelve', 'wind', '--for', 'soon', ...at], 2, '', 'telemetry: --for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, more than 0 and at most 7d; got "soon" (see "telemetry shelve --help")\n'],
    ['shelve for -5m', ['shelve', 'wind', '--for', '-5m', ...at], 2, '', 'telemetry: --for must be a span of time such as "90s", "15m", "1h", "1h30m" or a number of seconds, more than 0 and at most 7d; got "-5m" (see "telemetry shelve --help")\n'],
    ['an extra argument', ['alarms', 'wind', ...at], 2, '', /^telemetry: .*wind.* \(see "telemetry alarms --help"\)\n$/],
    ['an unknown alarm', ['ack', 'nope', '--by', 'ops', ...at], 1, '', 'telemetry: no alarm "nope" is configured (UNKNOWN_ALARM)\n'],
    ['unshelve of an alarm not shelved', ['unshelve', 'wind', '--by', 'ops', ...at], 1, '', 'telemetry: alarm wind is not shelved (it is normal) (ALARM_NOT_SHELVED)\n'],
    ['nothing waits', ['alarms', ...at], 0, /^SERIOUS {2}wind {2}normal since \S+ {2}wind high {2}unknown: weather is missing \(no reading\)\n$/, ''],
    ['no daemon', ['alarms', '--host', '127.0.0.1', '--port', '9'], 3, '', /^telemetry: no telemetry daemon at 127\.0\.0\.1:9 /],
  ];
  for (const [name, args, code, stdout, stderr] of rows) {
    const got = await cli(args);
    assert.is(got.code, code, name);
    if (typeof stdout === 'string') assert.is(got.stdout, stdout, name); else assert.match(got.stdout, stdout, name);
    if (typeof stderr === 'string') assert.is(got.stderr, stderr, name); else assert.match(got.stderr, stderr, name);
  }
  await postEvent(d.url, { type: 'weather', data: { wind: 45 } });
  const waiting = await cli(['alarms', ...at]);
  assert.equal([waiting.code, waiting.stderr], [4, 'telemetry: 1 alarm not acknowledged: wind\n']);
  const shelved = await cli(['shelve', 'wind', '--for', '90m', '--by', 'ops', ...at]);
  assert.equal([shelved.code, shelved.stderr], [0, '']);
  assert.match(shelved.stdout, /^SERIOUS {2}wind {2}shelved since \S+ {2}value 45 {2}wind high {2}shelved until \S+\n$/);
  const unshelved = await cli(['unshelve', 'wind', '--by', 'ops', ...at]);
  assert.equal([unshelved.code, unshelved.stderr], [0, '']);
  assert.match(unshelved.stdout, /^SERIOUS {2}wind {2}unack since /);
}));

test('a normal alarm does not show the acknowledgement of an earlier raise (GET /alarms still has it)', () => withTestDaemon({ config: CONFIG }, async (d) => {
  const at = ['--host', '127.0.0.1', '--port', String(d.port)];
  await postEvent(d.url, { type: 'weather', data: { wind: 45 } });
  assert.is((await cli(['ack', 'wind', '--by', 'ops', ...at])).code, 0);
  await postEvent(d.url, { type: 'weather', data: { wind: 10 } });
  const json = JSON.parse((await cli(['alarms', '--json', ...at])).stdout).alarms[0];
  assert.equal([json.state, json.acked_by], ['normal', 'ops']);
  const got = await cli(['alarms', ...at]);
  assert.equal([got.code, got.stdout, got.stderr], [0, `SERIOUS  wind  normal since ${json.since}  value 10  wind high\n`, '']);
}));

test('alarms on a daemon without [[alarm]] tables: says so, exit 0', () => withTestDaemon({}, async (d) => {
  const got = await cli(['alarms', '--host', '127.0.0.1', '--port', String(d.port)]);
  assert.equal([got.code, got.stdout, got.stderr], [0, 'no alarms are configured\n', '']);
  const json = await cli(['alarms', '--json', '--host', '127.0.0.1', '--port', String(d.port)]);
  assert.equal([json.code, json.stdout], [0, '{"alarms":[]}\n']);
}));

test.run();
