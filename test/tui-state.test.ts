import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClientError, TelemetryConnectionError } from '../client/errors.js';
import type { Envelope } from '../lib/wire.js';
import { applyUpdate, daemonNow, framed, initialState, NOTHING_FRESH, onlyType } from '../tui/console-state.js';
import { offsetOf, refineOffset } from '../tui/daemon-clock.js';
import { headerLines } from '../tui/header.js';
import { detailText } from '../tui/detail.js';
import { editFilter, tailFit, type FilterEdit, type KeyPress } from '../tui/filter-input.js';
import { footerText, HELP_LINES, promptLine } from '../tui/help.js';
import { toRow } from '../table/rows.js';

// The console's state changes, daemon clock, header text and filter prompt, without a terminal.

const T = Date.parse('2026-03-18T00:00:10.000Z');
const weather: Envelope = { seq: 4, ts: '2026-03-18T00:00:09.000Z', type: 'weather', data: { t: 1 }, meta: {} };
const dome: Envelope = { seq: 2, ts: '2026-03-18T00:00:01.000Z', type: 'dome', data: 'open', meta: { run_id: '007' } };
const ready = { ready: true as const, run_active: false, version: '0.1.0' };


const offsets: [string, [number, number, number][], { lo: number; hi: number }, number][] = [
  ['one answer: the header second, widened by the round trip', [[T, T - 50, T - 40]], { lo: 40, hi: 1050 }, 545],
  ['two answers narrow the bounds', [[T, T - 50, T - 40], [T + 1000, T + 300, T + 310]], { lo: 690, hi: 1050 }, 870],
  ['a stepped clock starts over', [[T, T, T], [T + 60_000, T + 1000, T + 1000]], { lo: 59_000, hi: 60_000 }, 59_500],
];
for (const [name, answers, bounds, offset] of offsets) {
  test(`refineOffset: ${name}`, () => {
    const got = answers.reduce<ReturnType<typeof refineOffset> | undefined>((b, [date, sent, received]) => refineOffset(b, date, sent, received), undefined);
    assert.equal(got, bounds);
    assert.is(offsetOf(got), offset);
  });
}

test('offsetOf: nothing known is 0', () => assert.is(offsetOf(undefined), 0));

test('applyUpdate: a status sets the run, the daemon clock and the limits; the first view flags nothing', () => {
  const withStatus = applyUpdate(initialState(), { kind: 'status', ready, run: undefined, sinks: [], maxAge: { '*': 60 }, serverTime: T, sentAt: T - 500, receivedAt: T - 500 });
  assert.is(daemonNow(withStatus, T - 500), T + 500);
  assert.equal([withStatus.runActive, withStatus.lastGoodPoll, withStatus.limits], [false, T + 500, [{ pattern: '*', seconds: 60 }]]);
  const live = applyUpdate(withStatus, { kind: 'connection', state: 'streaming', error: undefined, receivedAt: T - 500 });
  assert.is(live.connection, 'live');
  const s = applyUpdate(live, { kind: 'view', current: { weather, dome }, changed: [weather, dome], receivedAt: T - 500 });
  assert.equal(Object.keys(s.snapshot!), ['weather', 'dome']);
  assert.is(s.fresh, 'view');
  assert.is(s.lastGoodPoll, T + 500);
});

test('what came since the last frame: the types of stream events (the view changed in place), a whole view for a new view object', () => {
  const current: Record<string, Envelope> = { weather, dome };
  const view = (changed: Envelope[], of: Record<string, Envelope> = current) => ({ kind: 'view' as const, current: of, changed, receivedAt: T });
  let s = applyUpdate(initialState(), view([weather, dome]));
  assert.is(s.fresh, 'view', 'the first view');
  s = framed(s);
  assert.is(s.fresh, NOTHING_FRESH);
  assert.is(framed(s), s, 'nothing fresh: the same state');
  const newer = { ...weather, seq: 5, ts: '2026-03-18T00:00:11.000Z', data: { t: 2 } };
  current.weather = newer;
  s = applyUpdate(s, view([newer]));
  assert.equal([...(s.fresh as Set<string>)], ['weather']);
  const again = { ...dome, seq: 3, ts: '2026-03-18T00:00:12.000Z' };
  current.dome = again;
  s = applyUpdate(s, view([again]));
  assert.equal([...(s.fresh as Set<string>)], ['weather', 'dome'], 'until the next frame');
  s = applyUpdate(framed(s), view([], { ...current }));
  assert.is(s.fresh, 'view', 'a new view object (a reconnection, a poll)');
});

test('applyUpdate: the limits kept as the same object while unchanged and while the daemon is away; a selection nobody chose goes to the top', () => {
  const status = (maxAge: Record<string, number | null>) => ({ kind: 'status' as const, ready, run: undefined, sinks: [], maxAge, serverTime: T, sentAt: T, receivedAt: T });
  const first = applyUpdate({ ...initialState(), selected: 'dome' }, status({ '*': 60 }));
  assert.equal([first.limits, first.selected], [[{ pattern: '*', seconds: 60 }], undefined]);
  const same = applyUpdate(first, status({ '*': 60 }));
  assert.is(same.limits, first.limits);
  const error = new TelemetryConnectionError('x', { reason: 'ECONNREFUSED', timedOut: false, method: 'GET', url: 'x' });
  assert.is(applyUpdate(same, { kind: 'connection', state: 'disconnected', error, receivedAt: T }).limits, first.limits);
  const other = applyUpdate({ ...same, selected: 'dome', moved: true }, status({ dome: 5 }));
  assert.equal([other.limits, other.selected], [[{ pattern: 'dome', seconds: 5 }], 'dome']);
});

test('applyUpdate: streaming is LIVE, polling is POLLING; lost -> disconnected with readings kept; an error answer -> error', () => {
  const at = (state: 'streaming' | 'polling' | 'disconnected' | 'error', error?: unknown) => ({ kind: 'connection' as const, state, error, receivedAt: T });
  const live = applyUpdate(applyUpdate(initialState(), { kind: 'view', current: { weather }, changed: [weather], receivedAt: T }), at('streaming'));
  assert.is(applyUpdate(live, at('polling')).connection, 'polling');
  const error = new TelemetryConnectionError('no telemetry daemon at x (connection refused)', { reason: 'ECONNREFUSED', timedOut: false, method: 'GET', url: 'x' });
  const down = applyUpdate(live, at('disconnected', error));
  assert.equal([down.connection, down.snapshot], ['disconnected', live.snapshot]);
  const refused = new TelemetryClientError('403', { statusCode: 403, detail: 'Wrong token.', method: 'GET', url: 'x' });
  const bad = applyUpdate(live, at('error', refused));
  assert.equal([bad.connection, bad.problem], ['error', 'Wrong token.']);
});

test('onlyType keeps one type or none', () => {
  assert.equal(onlyType({ weather, dome }, 'dome'), { dome });
  assert.equal(onlyType({ weather }, 'dome'), {});
  assert.equal(onlyType({ weather }, undefined), { weather });
});

const info = { shown: 0, total: 0, stale: 0 };
const headers: [string, Partial<ReturnType<typeof initialState>>, { type?: string; shown: number; total: number; stale: number }, [string, string]][] = [
  ['connecting: no claim about the run yet', {}, info, ['meridian localhost:6562  CONNECTING', 'waiting for the daemon to answer']],
  ['never reached', { connection: 'disconnected' }, info,
    ['meridian localhost:6562  DISCONNECTED  retrying  updated never', 'no answer from the daemon yet']],
  ['live in a run, filtered, 2 stale', { connection: 'live', lastGoodPoll: T, snapshot: { weather, dome }, filter: 'we', order: { key: 'age', reverse: false }, runActive: true },
    { shown: 1, total: 3, stale: 2 }, ['meridian localhost:6562  LIVE  updated 00:00:10Z', 'run 007  2 STALE  1/3 types  poll 1s  sort age  filter "we"']],
  ['disconnected, reversed', { connection: 'disconnected', lastGoodPoll: T, snapshot: { weather }, order: { key: 'type', reverse: true } }, { shown: 1, total: 1, stale: 0 },
    ['meridian localhost:6562  DISCONNECTED  retrying  updated 00:00:10Z', 'run site  1 type  poll 1s  sort type reversed']],
  ['paused, single type', { connection: 'live', paused: true, lastGoodPoll: T, runActive: false }, { type: 'weather', shown: 1, total: 1, stale: 1 },
    ['meridian localhost:6562  PAUSED  updated 00:00:10Z', 'run site  1 STALE  type weather  poll 1s']],
  ['error', { connection: 'error', problem: 'Wrong token.', lastGoodPoll: T }, info,
    ['meridian localhost:6562  ERROR  updated 00:00:10Z  Wrong token.', 'run site  0 types  poll 1s  sort type']],
];
for (const [name, change, counts, expected] of headers) {
  test(`headerLines: ${name}`, () => {
    assert.equal(headerLines({ ...initialState(), ...change }, { address: 'localhost:6562', intervalMs: 1000, ...counts, type: counts.type }), expected);
  });
}

test('detailText: the envelope as formatted JSON, or why there is none', () => {
  const row = toRow('dome', dome, (_t, e) => ({ ageMs: e ? T - Date.parse(e.ts) : undefined, limitMs: 120_000, limitFrom: 'learned' }));
  assert.equal(detailText(row, undefined), {
    label: ' dome  9s  max 120s (learned)  seq 2 ',
    text: '{\n  "seq": 2,\n  "ts": "2026-03-18T00:00:01.000Z",\n  "type": "dome",\n  "data": "open",\n  "meta": {\n    "run_id": "007"\n  }\n}',
  });
  assert.equal(detailText(undefined, undefined), { label: ' detail ', text: 'no readings yet' });
  assert.equal(detailText(undefined, 'dome'), { label: ' detail ', text: 'no reading of "dome" yet' });
  assert.equal(detailText(undefined, undefined, 'zz'), { label: ' detail ', text: 'no type matches the filter "zz"' });
  assert.equal(detailText(undefined, undefined, ''), { label: ' detail ', text: 'no readings yet' });
  const missing = toRow('power', undefined, () => ({ ageMs: undefined, limitMs: 90_000 }));
  assert.equal(detailText(missing, undefined), { label: ' power  MISSING ', text: 'no reading of "power" yet; the daemon expects one (it has a max age for it)' });
});

// [name, text before, ch, key (as blessed reports it), expected]
const edits: [string, string, string | undefined, KeyPress, FilterEdit][] = [
  ['a letter is added', 'do', 'm', { name: 'm', full: 'm' }, { text: 'dom' }],
  ['a capital letter', 'a', 'B', { name: 'b', full: 'S-b' }, { text: 'aB' }],
  ['a space', 'dome', ' ', { name: 'space', full: 'space' }, { text: 'dome ' }],
  ['a wide character', '天', '気', { full: '気' }, { text: '天気' }],
  ['keys that mean something outside the prompt are text in it', 'x', 'q', { name: 'q', full: 'q' }, { text: 'xq' }],
  ['backspace removes one character (not half of one)', 'é天', '\x7f', { name: 'backspace', full: 'backspace' }, { text: 'é' }],
  ['backspace on nothing', '', '\x7f', { name: 'backspace', full: 'backspace' }, { text: '' }],
  ['Ctrl-U clears', 'weather', '\x15', { name: 'u', full: 'C-u', ctrl: true }, { text: '' }],
  ['Enter applies', 'dom', '\r', { name: 'enter', full: 'enter' }, { text: 'dom', done: 'apply' }],
  ['return (sent before enter) does nothing', 'dom', '\r', { name: 'return', full: 'return' }, { text: 'dom' }],
  ['Esc cancels', 'dom', '\x1b', { name: 'escape', full: 'escape' }, { text: 'dom', done: 'cancel' }],
  ['another control key does nothing', 'dom', '\x01', { name: 'a', full: 'C-a', ctrl: true }, { text: 'dom' }],
  ['a tab does nothing', 'dom', '\t', { name: 'tab', full: 'tab' }, { text: 'dom' }],
  ['a meta key does nothing', 'dom', 'x', { name: 'x', full: 'M-x', meta: true }, { text: 'dom' }],
  ['an arrow does nothing', 'dom', undefined, { name: 'up', full: 'up' }, { text: 'dom' }],
];
for (const [name, before, ch, key, expected] of edits) {
  test(`editFilter: ${name}`, () => assert.equal(editFilter(before, ch, key), expected));
}

test('the prompt line: what was typed, its end when long, then an inverse-video cursor', () => {
  assert.is(tailFit('weather', 10), 'weather');
  assert.is(tailFit('weather', 3), 'her');
  assert.is(tailFit('a天気', 3), '気', 'a wide character that does not fit whole is left out');
  assert.is(tailFit('a天気', 0), '');
  assert.is(promptLine('', 80), 'filter: \x1b[7m \x1b[27m');
  assert.is(promptLine('dome', 80), 'filter: dome\x1b[7m \x1b[27m');
  assert.is(promptLine('abcdefghijklmnop', 20), 'filter: fghijklmnop\x1b[7m \x1b[27m', '20 columns: 8 + 11 + the cursor');
});

test('the footer: the keys that fit, most needed kept; "p resume" while paused', () => {
  assert.is(footerText(80, false, false), 'j/k move  Enter detail  / filter  s sort  r reverse  p pause  ? help  q quit');
  assert.is(footerText(60, false, false), 'j/k move  c chart  / filter  s sort  p pause  ? help  q quit');
  assert.is(footerText(60, true, false), 'j/k move  / filter  s sort  p resume  ? help  q quit');
  assert.is(footerText(30, false, false), 'p pause  ? help  q quit');
  assert.is(footerText(80, true, true), 'Enter detail  c chart  p resume  ? help  q quit');
  assert.ok(HELP_LINES.every((l) => l.length <= 53) && HELP_LINES.length <= 16, 'the help fits 58x16 (a 60x20 terminal)');
});

test.run();
