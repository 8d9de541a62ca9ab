import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rulesFromWire } from '../lib/max-age.js';
import type { AlarmAnswer, Envelope } from '../lib/wire.js';
import { alarmLineText, selectedAlarm } from '../tui/alarm-line.js';
import { initialState } from '../tui/console-state.js';
import { consoleJudge } from '../tui/screen-model.js';

// The alarm line's text and choice (pure), and the console's judge with the daemon's learned
// limits (GET /status `learned`).

const alarm = (id: string, over: Partial<AlarmAnswer>): AlarmAnswer => ({
  id, severity: 'warning', state: 'normal', active: false, since: '2026-03-18T01:02:03.000Z', raised_at: null, value: null,
  message: `${id} message`, acked_by: null, acked_at: null, shelved_until: null, escalated_at: null, unknown: null, ...over,
});

const power = alarm('power', { severity: 'critical', state: 'unack', active: true, value: 0, message: 'mains lost' });
const dew = alarm('dew', { state: 'unack', active: true, value: 1.5, message: 'dew close' });
const acked = alarm('power', { severity: 'critical', state: 'acked', active: true, value: 0, acked_by: 'alice', message: 'mains lost' });
const shelved = alarm('dew', { state: 'shelved', shelved_until: '2026-03-18T02:02:15.000Z', value: 1.5, message: 'dew close' });
const latched = alarm('wind', { severity: 'serious', state: 'rtn_unack', message: 'wind high' });
const unknown = alarm('fog', { severity: 'serious', state: 'acked', acked_by: 'bob', unknown: 'weather is stale', message: 'fog' });

// [name, alarms, width, note, line]
const LINES: [string, AlarmAnswer[], number, string, string][] = [
  ['none configured', [], 80, '', 'alarms: 0, none active'],
  ['all normal', [alarm('a', {}), alarm('b', {})], 80, '', 'alarms: 2, none active'],
  ['one unacknowledged', [power], 80, '', 'CRITICAL UNACK power 01:02:03 [a ack, S shelve] mains lost (0)'],
  ['the worst of two unacknowledged, +1 more', [dew, power], 80, '', 'CRITICAL UNACK power 01:02:03 +1 more [a ack, S shelve] mains lost (0)'],
  ['unacknowledged before acknowledged, whatever the severity', [acked, dew], 80, '', 'WARNING UNACK dew 01:02:03 +1 more [a ack, S shelve] dew close (1.5)'],
  ['returned to normal, latched', [latched], 80, '', 'SERIOUS CLEARED, UNACK wind 01:02:03 [a ack, S shelve] wind high'],
  ['acknowledged, by whom', [acked], 80, '', 'CRITICAL ACKED power by alice 01:02:03 [S shelve] mains lost (0)'],
  ['shelved, until when', [shelved], 80, '', 'WARNING SHELVED dew until 02:02:15 01:02:03 dew close (1.5)'],
  ['an input that cannot be judged', [unknown], 80, '', 'SERIOUS ACKED fog by bob 01:02:03 [S shelve] fog [unknown: weather is stale]'],
  ['cut to 40 columns', [power], 40, '', 'CRITICAL UNACK power 01:02:03 [a ack, S…'],
  ['a note first', [acked], 80, 'acknowledged power as alice', 'acknowledged power as alice | CRITICAL ACKED power by alice 01:02:03 [S shelve]…'],
  ['a message with controls made printable', [alarm('x', { state: 'unack', message: 'bad\x1b[2Jtext' })], 80, '', 'WARNING UNACK x 01:02:03 [a ack, S shelve] bad\uFFFD[2Jtext'],
];
for (const [name, alarms, width, note, line] of LINES) {
  test(`alarmLineText: ${name}`, () => assert.is(alarmLineText(alarms, width, note), line));
}

// a shelf's end shows its date when it is not today (UTC, as every time on the line: hostile tester E, finding 6)
const SHELF_ENDS: [string, number, string][] = [
  ['ends today: the time alone', Date.parse('2026-03-18T00:00:00.000Z'), 'WARNING SHELVED dew until 02:02:15 01:02:03 dew close (1.5)'],
  ['ends tomorrow: with its date', Date.parse('2026-03-17T23:59:59.999Z'), 'WARNING SHELVED dew until 2026-03-18 02:02:15 01:02:03 dew close (1.5)'],
  ['ends in a year: with its date', Date.parse('2025-03-18T02:00:00.000Z'), 'WARNING SHELVED dew until 2026-03-18 02:02:15 01:02:03 dew close (1.5)'],
];
for (const [name, now, line] of SHELF_ENDS) {
  test(`alarmLineText: a shelf that ${name}`, () => assert.is(alarmLineText([shelved], 80, '', now), line));
}

test('selectedAlarm: none while every alarm is normal; shelved last', () => {
  assert.is(selectedAlarm([alarm('a', {})]), undefined);
  assert.is(selectedAlarm([shelved, acked])?.state, 'acked');
});

const envelope = (type: string, meta: Record<string, unknown> = {}): Envelope =>
  ({ seq: 1, ts: '2026-03-18T00:00:00.000Z', type, data: 1, meta }) as Envelope;

// [name, rules, learned, envelope, --max-age of the console, judgement limit and source]
const JUDGED: [string, Record<string, number | null>, Record<string, number> | undefined, Envelope, number | undefined, [number | undefined, string | undefined]][] = [
  ['learned', {}, { w: 12.5 }, envelope('w'), undefined, [12_500, 'learned']],
  ['a rule before the learned limit', { w: 60 }, { w: 12.5 }, envelope('w'), undefined, [60_000, 'rule']],
  ['none rule: no limit', { w: null }, { w: 12.5 }, envelope('w'), undefined, [undefined, undefined]],
  ['the reading\'s own before both', { w: 60 }, { w: 12.5 }, envelope('w', { max_age_s: 30 }), undefined, [30_000, 'reading']],
  ['the console\'s --max-age before all', { w: 60 }, { w: 12.5 }, envelope('w'), 5000, [5000, '--max-age']],
  ['nothing learned', {}, {}, envelope('w'), undefined, [undefined, undefined]],
  ['an older daemon without learned', {}, undefined, envelope('w'), undefined, [undefined, undefined]],
];
for (const [name, rules, learned, env, limitMs, [expected, from]] of JUDGED) {
  test(`consoleJudge: ${name}`, () => {
    const state = { ...initialState(), limits: rulesFromWire(rules), learned };
    const judged = consoleJudge(state, Date.parse('2026-03-18T00:00:20.000Z'), limitMs)('w', env);
    assert.equal([judged.ageMs, judged.limitMs, judged.limitFrom], [20_000, expected, from]);
  });
}

test.run();
