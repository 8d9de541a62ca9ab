import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { alarmRank, unitAlarms } from '../lib/unit-alarms.js';
import type { AlarmAnswer, AlarmSeverity, AlarmState } from '../lib/wire.js';

// A unit's alarms summed up for the fleet's units table (docs/fleet.md, Alarms): which alarms
// stand (unack, acked, rtn_unack; a shelved one never), the worst and its id (an unacknowledged
// one before an acknowledged one of its severity, then by id), how many wait for an
// acknowledgement; and the order telemetry fleet gives them.

const alarm = (id: string, severity: AlarmSeverity, state: AlarmState): AlarmAnswer => ({
  id, severity, state, active: state === 'unack' || state === 'acked', since: '2026-11-25T00:00:00.000Z', raised_at: null, value: null,
  message: id, acked_by: null, acked_at: null, shelved_until: null, escalated_at: null, unknown: null,
});

const rows: [string, AlarmAnswer[], ReturnType<typeof unitAlarms>][] = [
  ['no alarms listed', [], { severity: 'none', unacked: 0, id: null }],
  ['all normal', [alarm('a', 'critical', 'normal'), alarm('b', 'warning', 'normal')], { severity: 'none', unacked: 0, id: null }],
  ['a shelved critical counts for nothing', [alarm('a', 'critical', 'shelved'), alarm('b', 'warning', 'acked')], { severity: 'warning', unacked: 0, id: 'b' }],
  ['returned to normal, unacknowledged: standing', [alarm('a', 'serious', 'rtn_unack')], { severity: 'serious', unacked: 1, id: 'a' }],
  ['the worst severity wins over an unacknowledged lower one', [alarm('w', 'warning', 'unack'), alarm('c', 'critical', 'acked')], { severity: 'critical', unacked: 1, id: 'c' }],
  ['an unacknowledged one before an acknowledged one of its severity', [alarm('a', 'serious', 'acked'), alarm('z', 'serious', 'unack')], { severity: 'serious', unacked: 1, id: 'z' }],
  ['then by id', [alarm('m', 'serious', 'unack'), alarm('b', 'serious', 'rtn_unack')], { severity: 'serious', unacked: 2, id: 'b' }],
];

for (const [what, list, want] of rows) {
  test(what, () => {
    assert.equal(unitAlarms(list), want);
    assert.equal(unitAlarms([...list].reverse()), want, 'in any order');
  });
}

test('rank: none configured and none standing lowest, then by severity, an unacknowledged one above an acknowledged one', () => {
  const order = [null, { severity: 'none', unacked: 0, id: null }, { severity: 'warning', unacked: 0, id: 'a' }, { severity: 'warning', unacked: 1, id: 'a' },
    { severity: 'serious', unacked: 0, id: 'a' }, { severity: 'critical', unacked: 0, id: 'a' }, { severity: 'critical', unacked: 3, id: 'a' }] as const;
  assert.equal(order.map((a) => alarmRank(a)), [-1, -1, 0, 1, 2, 4, 5]);
});

test.run();
