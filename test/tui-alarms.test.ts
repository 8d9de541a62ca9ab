import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COLOUR, follow, withConsole } from './helpers/console-screen.js';
import type { ChildDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';
import type { Terminal } from './helpers/tmux.js';
import { POWER_AND_DEW } from './helpers/alarm-config.js';

// Issue 24 in the live console, in a real terminal (tmux) against a daemon child with alarms:
// the alarm line is on screen at 60x20 with 300 types wherever the table is scrolled, filtered
// or the help open; `a` acknowledges in the OS user's name, `S` shelves for an hour; severity
// and state are words (NO_COLOR); --bell rings once when an alarm is raised.

const CONFIG = POWER_AND_DEW;

const USER = os.userInfo().username;

/** `fn` with a daemon child running CONFIG and a terminal. */
async function withAlarms(fn: (d: ChildDaemon, t: Terminal) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const config = path.join(dir, 'meridian.toml');
  fs.writeFileSync(config, CONFIG);
  try {
    await withConsole(fn, ['--config', config]);
  } finally {
    removeDir(dir);
  }
}

/** 300 sensor types in one batch. */
async function seed(d: ChildDaemon): Promise<void> {
  const body = Array.from({ length: 300 }, (_, i) => ({ type: `sensor-${String(i + 1).padStart(3, '0')}`, data: { v: i } }));
  assert.is((await request(d.url, '/events', { method: 'POST', body })).status, 200);
}

/** The third line of the screen: the alarm line (under the two header lines). */
const alarmLine = (screen: string): string => screen.split('\n')[2]!.trimEnd();

const TIME = String.raw`\d\d:\d\d:\d\d`;

test('60x20, 300 types: the active alarm is on screen wherever the table is; a acknowledges it in the OS user\'s name', () => withAlarms(async (d, t) => {
  await seed(d);
  assert.is((await postEvent(d.url, { type: 'power', data: { v: 0 } })).status, 200);
  t.run(follow(d), { width: 60, height: 20, env: { NO_COLOR: '1' } });
  // 60 columns: the message is cut, the severity, state, id, time and keys are whole
  const unack = new RegExp(`^CRITICAL UNACK power ${TIME} \\[a ack, S shelve\\] mains lost …$`);
  let screen = await t.waitFor('the alarm line', (s) => unack.test(alarmLine(s)));
  assert.ok(screen.split('\n')[3]!.startsWith('┌─ readings '), 'the table starts under the alarm line');
  // scrolled to the end, paged, filtered to nothing, the help open: the line stays
  for (const keys of [['G'], ['PageUp'], ['/', 'nothing-matches', 'Enter'], ['?']]) {
    t.keys(...keys);
    screen = await t.waitFor(`after ${keys.join(' ')}`, (s) => unack.test(alarmLine(s)) && (keys[0] !== '?' || s.includes('ack / shelve alarm')));
  }
  t.keys('Escape', 'Escape');
  assert.not.match(t.screen(true).split('\n')[2]!, COLOUR, 'NO_COLOR: no colour on the alarm line');
  t.keys('a');
  const acked = new RegExp(`^acknowledged power as ${USER} \\| CRITICAL ACKED power by ${USER} `);
  await t.waitFor('the acknowledgement', (s) => acked.test(alarmLine(s)));
  // the note goes after a few polls
  await t.waitFor('the acknowledged line', (s) => new RegExp(`^CRITICAL ACKED power by ${USER} ${TIME} \\[S shelve\\] mains l`).test(alarmLine(s)));
  const alarm = (await request(d.url, '/alarms')).json.alarms.find((a: { id: string }) => a.id === 'power');
  assert.equal([alarm.state, alarm.acked_by], ['acked', USER]);
}));

test('S shelves the alarm on the line for an hour; the next one comes up; a with nothing to act on says so', () => withAlarms(async (d, t) => {
  assert.is((await postEvent(d.url, { type: 'weather', data: { dd: 1.5 } })).status, 200);
  t.run(follow(d), { width: 80, height: 24 });
  await t.waitFor('the dew alarm', (s) => new RegExp(`^WARNING UNACK dew ${TIME} \\[a ack, S shelve\\] dew close \\(1\\.5\\)$`).test(alarmLine(s)));
  t.keys('S');
  await t.waitFor('the shelf', (s) => new RegExp(`^shelved dew for 1h \\| WARNING SHELVED dew until ${TIME} ${TIME} dew close`).test(alarmLine(s)));
  const alarm = (await request(d.url, '/alarms')).json.alarms.find((a: { id: string }) => a.id === 'dew');
  assert.is(alarm.state, 'shelved');
  const left = Date.parse(alarm.shelved_until) - Date.now();
  assert.ok(left > 3_590_000 && left <= 3_600_000, `shelved for an hour (${left} ms left)`);
  // a critical one comes: it goes on the line, ahead of the shelved one
  assert.is((await postEvent(d.url, { type: 'power', data: { v: 0 } })).status, 200);
  await t.waitFor('the power alarm', (s) => new RegExp(`^CRITICAL UNACK power ${TIME} \\+1 more \\[a ack, S shelve\\] mains lost \\(0\\)$`).test(alarmLine(s)));
}));

test('no alarms configured: no alarm line (the table right under the header)', () => withConsole(async (d, t) => {
  assert.is((await postEvent(d.url, { type: 'weather', data: 1 })).status, 200);
  t.run(follow(d), { width: 60, height: 20 });
  const screen = await t.waitFor('the reading', (s) => s.includes('weather'));
  assert.ok(screen.split('\n')[2]!.startsWith('┌─ readings '), screen);
}));

test('--bell rings the terminal bell when an alarm is raised; without it, no bell', () => withAlarms(async (d, t) => {
  assert.is((await postEvent(d.url, { type: 'power', data: { v: 230 } })).status, 200);
  t.run([...follow(d), '--bell'], { width: 60, height: 20 });
  await t.waitFor('the quiet line', (s) => alarmLine(s) === 'alarms: 2, none active');
  assert.is(t.display('#{window_bell_flag}'), '0');
  assert.is((await postEvent(d.url, { type: 'power', data: { v: 0 } })).status, 200);
  await t.waitFor('the alarm', (s) => alarmLine(s).startsWith('CRITICAL UNACK power'));
  assert.is(t.display('#{window_bell_flag}'), '1');
}));

test.run();
