import type { AlarmAnswer, AlarmState } from '../lib/wire.js';
import { fitText } from '../table/format.js';
import type { ConsoleWidgets } from './layout.js';

// The alarm line (docs/console.md "Alarms"): one line under the header, on screen whatever the
// table shows, while the daemon has alarms configured. It names the alarm `a` acknowledges and
// `S` shelves (the one most in need of a person), its severity and state written as words, so
// it reads the same without colour (NO_COLOR, the night theme, a vt100).

/** How urgent a state is for the line: an alarm nobody acknowledged first. */
const URGENCY: Readonly<Record<AlarmState, number>> = { unack: 0, rtn_unack: 1, acked: 2, shelved: 3, normal: 4 };
const SEVERITY_RANK = { critical: 0, serious: 1, warning: 2 } as const;

/** The alarm the line shows and the keys act on: unacknowledged first, then worst severity, then by id; undefined when none needs a look. */
export function selectedAlarm(alarms: readonly AlarmAnswer[]): AlarmAnswer | undefined {
  let best: AlarmAnswer | undefined;
  for (const alarm of alarms) {
    if (alarm.state === 'normal') continue;
    if (!best || rank(alarm) < rank(best)) best = alarm;
  }
  return best;
}

function rank(a: AlarmAnswer): number {
  return URGENCY[a.state] * 10 + SEVERITY_RANK[a.severity];
}

/** The state as the line writes it. */
const STATE_WORDS: Readonly<Record<AlarmState, string>> = {
  unack: 'UNACK', rtn_unack: 'CLEARED, UNACK', acked: 'ACKED', shelved: 'SHELVED', normal: 'normal',
};

/**
 * The line's text, cut to `width`, what matters first (the message may be cut):
 * `CRITICAL UNACK power 01:02:03 +1 more [a ack, S shelve] mains lost (0)`,
 * `CRITICAL ACKED power by alice 01:02:09 [S shelve] mains lost (0)`, `alarms: 3, none active`;
 * `note` (what the last key did) goes first until the next key.
 */
export function alarmLineText(alarms: readonly AlarmAnswer[], width: number, note = '', now?: number): string {
  const alarm = selectedAlarm(alarms);
  const others = alarms.filter((a) => a !== alarm && a.state !== 'normal').length;
  let text: string;
  if (!alarm) {
    text = `alarms: ${alarms.length}, none active`;
  } else {
    const who = alarm.state === 'acked' && alarm.acked_by !== null ? ` by ${alarm.acked_by}` : '';
    // a shelf that does not end today (UTC, as every time on the line) shows its date
    const until = alarm.state === 'shelved' && alarm.shelved_until !== null ? ` until ${shelfEnd(alarm.shelved_until, now)}` : '';
    const value = alarm.value === null ? '' : ` (${JSON.stringify(alarm.value)})`;
    const unknown = alarm.unknown === null ? '' : ` [unknown: ${alarm.unknown}]`;
    const keys = alarm.state === 'unack' || alarm.state === 'rtn_unack' ? ' [a ack, S shelve]' : alarm.state === 'shelved' ? '' : ' [S shelve]';
    text = `${alarm.severity.toUpperCase()} ${STATE_WORDS[alarm.state]} ${alarm.id}${who}${until} ${clock(alarm.since)}` +
      `${others > 0 ? ` +${others} more` : ''}${keys} ${alarm.message}${value}${unknown}`;
  }
  return fitText(note === '' ? text : `${note} | ${text}`, width).trimEnd();
}

/** The line's marks: a critical alarm nobody acknowledged as the header's `down`, another as its `alert`, else none. */
function alarmMarks(alarms: readonly AlarmAnswer[], w: ConsoleWidgets): readonly [string, string] {
  const alarm = selectedAlarm(alarms);
  if (!alarm || (alarm.state !== 'unack' && alarm.state !== 'rtn_unack')) return ['', ''];
  return alarm.severity === 'critical' ? w.theme.down : w.theme.alert;
}

/** Draw the line (hidden while the daemon has no alarms, or does not know of them). */
export function renderAlarmLine(w: ConsoleWidgets, alarms: readonly AlarmAnswer[] | undefined, note: string, now?: number): void {
  if (alarms === undefined || alarms.length === 0) {
    w.alarm.hide();
    return;
  }
  const width = w.screen.width as number;
  const [on, off] = alarmMarks(alarms, w);
  const text = `${on}${alarmLineText(alarms, width, note, now)}${off}`;
  if (w.alarm.getContent() !== text) w.alarm.setContent(text);
  w.alarm.show();
}

/** `HH:MM:SS` of a ts (UTC, as the daemon writes them), the ts itself when it is not one. */
function shelfEnd(ts: string, now: number | undefined): string {
  const today = now === undefined || Number.isNaN(now) ? undefined : new Date(now).toISOString().slice(0, 10);
  return today === undefined || ts.startsWith(today) ? clock(ts) : `${ts.slice(0, 10)} ${clock(ts)}`;
}

function clock(ts: string): string {
  const m = /T(\d\d:\d\d:\d\d)/.exec(ts);
  return m ? m[1]! : ts;
}
