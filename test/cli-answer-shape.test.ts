import http from 'node:http';
import type net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';

// An answer that is not the one asked for (a proxy's `{}`, a foreign server's `{"safe":1}`),
// through the real executable against a real loopback server: `safety` is fail-safe (UNSAFE,
// exit 4, never SAFE), the alarm commands say it in one line (exit 1); never a stack trace.

async function withServer(body: string, fn: (port: number) => Promise<void>): Promise<void> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fn((server.address() as net.AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const VERDICT = 'the answer to GET /safety is not a safety verdict';
const safetyRows: [string, string, string][] = [
  ['safe as a number', '{"safe":1}', 'safe is the number 1, not true or false'],
  ['safe without since', '{"safe":true}', 'since is missing, not a time'],
  ['safe without reasons', '{"safe":true,"since":"2026-11-25T01:00:00.000Z"}', 'reasons is not a list of texts'],
  ['safe without inputs', '{"safe":true,"since":"2026-11-25T01:00:00.000Z","reasons":[]}', 'inputs is missing, not an object'],
  ['safe without configured', '{"safe":true,"since":"2026-11-25T01:00:00.000Z","reasons":[],"inputs":{}}', 'configured is missing, not true or false'],
  ['an empty object', '{}', 'safe is missing, not true or false'],
  ['a list', '[]', 'it is a list, not an object'],
  ['null', 'null', 'it is null, not an object'],
  ['unsafe without since', '{"safe":false}', 'since is missing, not a time'],
  // hostile tester O: what a script would open the dome on
  ['safe but not configured', '{"safe":true,"since":"2026-11-25T01:00:00Z","reasons":[],"inputs":{},"configured":false}',
    'safe is true but configured is false (a daemon without [safety] is never safe)'],
  ['safe with a reason', '{"safe":true,"since":"2026-11-25T01:00:00Z","reasons":["rain"],"inputs":{},"configured":true}', 'safe is true but reasons are given ("rain")'],
  ['since not a time', '{"safe":true,"since":"x","reasons":[],"inputs":{},"configured":true}',
    'since is "x", not a time (it must be an ISO-8601 date-time with Z or a UTC offset)'],
  ['since on February 30', '{"safe":true,"since":"2026-02-30T01:00:00Z","reasons":[],"inputs":{},"configured":true}',
    'since is "2026-02-30T01:00:00Z", not a time (it is not a real date-time (you specified 30 (of type number) as a day, which is invalid))'],
  ['since a date alone', '{"safe":true,"since":"2026-11-25","reasons":[],"inputs":{},"configured":true}',
    'since is "2026-11-25", not a time (it must be an ISO-8601 date-time with Z or a UTC offset)'],
];

test('safety: a whole, coherent verdict is printed as it is (the checks refuse nothing a daemon says)', async () => {
  for (const [body, line, code] of [
    ['{"safe":true,"since":"2026-11-25T01:00:00.000Z","reasons":[],"inputs":{"w":{"age_s":1,"stale":true,"value":null}},"configured":true}', 'SAFE since 2026-11-25T01:00:00.000Z\n', 0],
    ['{"safe":false,"since":"2026-11-25T01:00:00+01:00","reasons":["no [safety] section in the daemon\'s config"],"inputs":{},"configured":false}',
      'UNSAFE since 2026-11-25T01:00:00+01:00: no [safety] section in the daemon\'s config\n', 4],
  ] as const) {
    await withServer(body, async (port) => {
      const got = await cli(['safety', '--host', '127.0.0.1', '--port', String(port)]);
      assert.equal([got.code, got.stdout], [code, line], body);
    });
  }
});

test('safety: an answer that is not a whole verdict is UNSAFE, exit 4, one line', async () => {
  for (const [name, body, problem] of safetyRows) {
    await withServer(body, async (port) => {
      const got = await cli(['safety', '--host', '127.0.0.1', '--port', String(port)]);
      assert.equal(got, { code: 4, stdout: `UNSAFE: ${VERDICT}: ${problem}\n`, stderr: `telemetry: unsafe: ${VERDICT}: ${problem}\n` }, name);
      const json = await cli(['safety', '--json', '--host', '127.0.0.1', '--port', String(port)]);
      assert.equal(json, { code: 4, stdout: `${body}\n`, stderr: `telemetry: unsafe: ${VERDICT}: ${problem}\n` }, `${name} --json`);
    });
  }
});

const ALARM = '{"id":"wind","severity":"serious","state":"acked","active":true,"since":"t","raised_at":"t","value":45,"message":"m",' +
  '"acked_by":"ops","acked_at":"t","shelved_until":null,"escalated_at":null,"unknown":null}';
const alarmRows: [string, string[], string, string][] = [
  ['alarms as a text', ['alarms'], '{"alarms":"nope"}', 'the answer to GET /alarms is not a list of alarms: alarms is the text "nope", not a list'],
  ['alarms null', ['alarms'], 'null', 'the answer to GET /alarms is not a list of alarms: it is null, not an object'],
  ['an alarm without a message', ['alarms'], `{"alarms":[${ALARM.replace('"message":"m",', '')}]}`, 'the answer to GET /alarms is not a list of alarms: alarm 1: message is missing, not a text'],
  ['an alarm of an unknown state', ['alarms'], `{"alarms":[${ALARM.replace('"acked"', '"odd"')}]}`, 'the answer to GET /alarms is not a list of alarms: alarm 1: state is the text "odd", not normal, unack, acked, rtn_unack, shelved'],
  ['ack answered {}', ['ack', 'wind', '--by', 'ops'], '{}', 'the answer to POST /alarms/wind/ack is not an alarm: id is missing, not a text'],
  ['shelve answered []', ['shelve', 'wind', '--for', '1h', '--by', 'ops'], '[]', 'the answer to POST /alarms/wind/shelve is not an alarm: it is a list, not an object'],
  ['unshelve answered an alarm without active', ['unshelve', 'wind', '--by', 'ops'], ALARM.replace('"active":true,', ''), 'the answer to DELETE /alarms/wind/shelve is not an alarm: active is missing, not true or false'],
];

test('alarms, ack, shelve, unshelve: an answer of the wrong shape is one line, exit 1', async () => {
  for (const [name, args, body, message] of alarmRows) {
    await withServer(body, async (port) => {
      const got = await cli([...args, '--host', '127.0.0.1', '--port', String(port)]);
      assert.equal(got, { code: 1, stdout: '', stderr: `telemetry: ${message}\n` }, name);
    });
  }
  await withServer(`{"alarms":[${ALARM}]}`, async (port) => {
    const got = await cli(['alarms', '--host', '127.0.0.1', '--port', String(port)]);
    assert.equal(got, { code: 0, stdout: 'SERIOUS  wind  acked since t  value 45  m  acked by ops at t\n', stderr: '' });
  });
});

test('safety: a 200 that is not JSON is no daemon (exit 3), never SAFE', async () => {
  await withServer('<html>', async (port) => {
    const got = await cli(['safety', '--host', '127.0.0.1', '--port', String(port)]);
    assert.equal([got.code, got.stdout], [3, '']);
    assert.match(got.stderr, /^telemetry: no telemetry daemon at 127\.0\.0\.1:\d+ \(another kind of server answers there: 200 /);
  });
});

test.run();
