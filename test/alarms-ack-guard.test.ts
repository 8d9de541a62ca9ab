import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { parseEventBody } from '../daemon/http/validate.js';

// An acknowledgement covers what the operator saw (hostile tester M, finding 5): with the
// `severity` or `since` the client showed, an alarm that went worse or changed since is not
// acknowledged (409 ALARM_CHANGED with the alarm as it is now, no event, nothing changes);
// what it is now is acknowledged. Both are optional (an ack without them is as before).

const CONFIG = `
[[alarm]]
id = "wind"
message = "wind high"
[[alarm.level]]
severity = "warning"
when = "weather.data.w > 40"
[[alarm.level]]
severity = "critical"
when = "weather.data.w > 60"
`;

test('ack with what the client saw: a mismatch is 409 ALARM_CHANGED with the alarm now and changes nothing; a match acknowledges', () => withTestDaemon({ config: CONFIG }, async (d) => {
  await postEvent(d.url, { type: 'weather', data: { w: 45 } });
  const seen = (await request(d.url, '/alarms/wind')).json;
  assert.equal([seen.state, seen.severity], ['unack', 'warning']);
  await postEvent(d.url, { type: 'weather', data: { w: 65 } });
  const now = (await request(d.url, '/alarms/wind')).json;
  assert.equal([now.state, now.severity], ['unack', 'critical']);
  const stale = `it is unack critical since ${now.since}`;
  const ROWS: [string, Record<string, unknown>, string][] = [
    ['the severity seen', { severity: 'warning' }, `Alarm wind was not acknowledged: it is critical, not the warning you saw (${stale}); look at it and acknowledge it again.`],
    ['the since seen', { since: seen.since }, `Alarm wind was not acknowledged: it changed since ${seen.since}, when you saw it (${stale}); look at it and acknowledge it again.`],
    ['both', { severity: 'warning', since: seen.since }, `Alarm wind was not acknowledged: it is critical, not the warning you saw (${stale}); look at it and acknowledge it again.`],
  ];
  for (const [name, guard, detail] of ROWS) {
    const r = await request(d.url, '/alarms/wind/ack', { body: { by: 'ops', ...guard } });
    assert.equal([r.status, r.json], [409, { detail, code: 'ALARM_CHANGED', alarm: now }], name);
  }
  const BAD: [Record<string, unknown>, string][] = [
    [{ severity: 'high' }, 'severity (the one you saw) must be "warning", "serious" or "critical"; got "high".'],
    [{ since: 'yesterday' }, 'since (the alarm\'s since you saw) must be an ISO-8601 date-time with Z or a UTC offset; got "yesterday".'],
    [{ since: 5 }, 'since (the alarm\'s since you saw) must be a string; got 5.'],
  ];
  for (const [guard, detail] of BAD) {
    const r = await request(d.url, '/alarms/wind/ack', { body: { by: 'ops', ...guard } });
    assert.equal([r.status, r.json], [422, { detail, code: 'INVALID_BODY' }], JSON.stringify(guard));
  }
  assert.equal((await request(d.url, '/alarms/wind')).json, now, 'nothing changed');
  // the same instant in another spelling is the same since
  const offset = now.since.replace('Z', '+00:00');
  const ok = await request(d.url, '/alarms/wind/ack', { body: { by: 'ops', severity: 'critical', since: offset } });
  assert.equal([ok.status, ok.json.state, ok.json.severity, ok.json.acked_by], [200, 'acked', 'critical', 'ops']);
  await postEvent(d.url, { type: 'marker', data: 1 });
  const events = (await request(d.url, '/history?type=meridian.alarm')).json.events.map((e: { data: { from: string; to: string; severity: string } }) => `${e.data.from}>${e.data.to} ${e.data.severity}`);
  assert.equal(events, ['normal>unack warning', 'unack>unack critical', 'unack>acked critical']);
}));

test('telemetry ack --severity --since: what the operator saw, refused with the alarm as it is now when it changed (exit 1), taken when it did not; a bad guard is a usage error and sends nothing', () => withTestDaemon({ config: CONFIG }, async (d) => {
  const at = ['--host', '127.0.0.1', '--port', String(d.port)];
  await postEvent(d.url, { type: 'weather', data: { w: 45 } });
  const seen = (await request(d.url, '/alarms/wind')).json;
  await postEvent(d.url, { type: 'weather', data: { w: 65 } });
  const now = (await request(d.url, '/alarms/wind')).json;
  assert.equal([now.state, now.severity], ['unack', 'critical']);
  const stale = `it is unack critical since ${now.since}`;
  const ROWS: [string, string[], number, string][] = [
    ['the severity seen, as alarms prints it', ['--severity', 'WARNING'], 1, `telemetry: alarm wind was not acknowledged: it is critical, not the warning you saw (${stale}); look at it and acknowledge it again (ALARM_CHANGED)\n`],
    ['the since seen', ['--since', seen.since], 1, `telemetry: alarm wind was not acknowledged: it changed since ${seen.since}, when you saw it (${stale}); look at it and acknowledge it again (ALARM_CHANGED)\n`],
    ['a severity that is none', ['--severity', 'high'], 2, 'telemetry: --severity must be the severity you saw: warning, serious, critical; got "high" (see "telemetry ack --help")\n'],
    ['a since that is no instant', ['--since', '2026-02-30T00:00:00Z'], 2, /^telemetry: --since must be the alarm's since you saw \(.+\); got "2026-02-30T00:00:00Z" \(see "telemetry ack --help"\)\n$/ as unknown as string],
  ];
  for (const [name, guard, code, stderr] of ROWS) {
    const got = await cli(['ack', 'wind', '--by', 'ops', ...guard, ...at]);
    assert.equal([got.code, got.stdout], [code, ''], name);
    if (typeof stderr === 'string') assert.is(got.stderr, stderr, name); else assert.match(got.stderr, stderr, name);
  }
  assert.equal((await request(d.url, '/alarms/wind')).json, now, 'nothing changed');
  const ok = await cli(['ack', 'wind', '--by', 'ops', '--severity', 'critical', '--since', now.since.replace('Z', '+00:00'), ...at]);
  assert.equal([ok.code, ok.stderr], [0, '']);
  assert.is(ok.stdout, `CRITICAL  wind  acked since ${(await request(d.url, '/alarms/wind')).json.since}  value 65  wind high  acked by ops at ${(await request(d.url, '/alarms/wind')).json.acked_at}\n`);
}));

test('an answer, an acknowledgement after a recorded reading are of the alarm as that reading left it (not the look after the turn; hostile tester P, finding 6)', () => withTestDaemon({ config: CONFIG }, async (d) => {
  const { store, alarms } = d.daemon;
  await store.append(parseEventBody(JSON.stringify({ type: 'weather', data: { w: 45 } })));
  // the reading is recorded; the alarms' look of this turn has not run yet
  assert.equal([alarms.get('wind').state, alarms.get('wind').severity, JSON.stringify(alarms.get('wind').value)], ['unack', 'warning', '45']);
  const seen = alarms.get('wind');
  await store.append(parseEventBody(JSON.stringify({ type: 'weather', data: { w: 65 } })));
  assert.equal(alarms.list().map((a) => [a.id, a.state, a.severity, JSON.stringify(a.value)]), [['wind', 'unack', 'critical', '65']]);
  await store.append(parseEventBody(JSON.stringify({ type: 'weather', data: { w: 70 } })));
  // the guard compares with the alarm as the last reading left it: raised worse than what was seen
  try {
    await alarms.ack('wind', 'ops', undefined, { severity: seen.severity });
    assert.unreachable('acknowledged what was not seen');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'ALARM_CHANGED');
  }
  assert.equal([alarms.get('wind').state, JSON.stringify(alarms.get('wind').value)], ['unack', '70']);
}));

test.run();
