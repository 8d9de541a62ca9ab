import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ageless, boxed, COLOUR, follow, order, post, row, withConsole } from './helpers/console-screen.js';
import { cli } from './helpers/cli.js';
import { request } from './helpers/http.js';
import { freePort, spawnDaemon, TELEMETRY_BIN as TELEMETRY, type ChildDaemon } from './helpers/daemon.js';
import { removeDir } from './helpers/tmp.js';
import { Terminal } from './helpers/tmux.js';
import { HELP_LINES } from '../tui/help.js';

// Issue 14 in the live console, each in a real terminal (tmux) at 80x24 or 60x20 against a
// daemon child with per-type limits: a stale or missing reading is never out of sight.
// old.01..old.10 are stale at once (a limit of 1 ms), power is expected and missing.

const RULES = ['--max-age', 'power=90,old.*=0.001,*=3600'];

/** Ten readings that are stale at once and twenty fresh ones; the daemon then records meridian.stale (31 types with a reading, 32 rows with the missing power). */
async function seed(d: ChildDaemon): Promise<void> {
  // in one batch: the daemon records each one stale the moment its 1 ms has passed (after the batch: seq 1..10)
  const old = Array.from({ length: 10 }, (_, i) => ({ type: `old.${String(i + 1).padStart(2, '0')}`, data: { v: i + 1 } }));
  assert.is((await request(d.url, '/events', { method: 'POST', body: old })).status, 200);
  for (let i = 1; i <= 20; i++) await post(d, `sensor-${String(i).padStart(2, '0')}`, { temp_c: i / 2, ok: true });
}

/** The screen without the first line (it has the time of the last poll), single-digit ages as Ns. */
const body = (screen: string): string[] => screen.split('\n').slice(1, -1).map(ageless);

const staleRow = (n: number, width: number) => boxed(`   old.${String(n).padStart(2, '0')}          Ns STALE        ${String(n).padStart(2)}  -    v=${n}`, 0, width);

test('80x24: "11 STALE" in the header, stale rows on top, the position and "+24 more (3 stale) ↓" on the borders; End shows the rest', () => withConsole(async (d, t) => {
  await seed(d);
  t.run(follow(d), { width: 80, height: 24 });
  let s = await t.waitFor('32 types and the trend', (x) => x.includes(' 1/32 ') && x.includes('│last hour:') && x.includes('│  "type": "old.01",'));
  assert.equal(body(s), [
    'run site  11 STALE  31 types  poll 300ms  sort type',
    `┌─ readings ${'─'.repeat(60)} 1/32 ─┐`,
    boxed('   TYPE▲           AGE            SEQ  RUN  DATA'),
    boxed(''),
    ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => staleRow(n, 80)),
    `└${'─'.repeat(55)} +24 more (3 stale) ↓ ─┘`,
    `┌─ old.01  Ns STALE  max 0.001s  seq 1 ${'─'.repeat(40)}┐`,
    // the trend of its one numeric field (one reading), then the envelope
    boxed('last hour:'),
    boxed(`v${' '.repeat(66)}▄ 1..1  1`),
    boxed(''),
    boxed('{'),
    boxed('  "seq": 1,'),
    body(s)[19]!,
    boxed('  "type": "old.01",'),
    `└${'─'.repeat(78)}┘`,
    'j/k move  Enter detail  / filter  s sort  r reverse  p pause  ? help  q quit',
  ]);
  assert.match(s.split('\n')[20]!, /^│ {2}"ts": "\d{4}-.*Z",/);
  t.keys('G');
  s = await t.waitFor('the last row', (x) => x.includes(' 32/32 '));
  assert.match(s.split('\n')[2]!, /─ ↑ 24 more \(11 stale\) {2}32\/32 ─┐$/);
  assert.is(s.split('\n')[13], `└${'─'.repeat(78)}┘`, 'nothing below');
  assert.equal(order(s), ['sensor-13', 'sensor-14', 'sensor-15', 'sensor-16', 'sensor-17', 'sensor-18', 'sensor-19', 'sensor-20']);
  t.keys('PPage');
  s = await t.waitFor('a page up', (x) => x.includes(' 24/32 '));
  assert.match(s.split('\n')[13]!, /─ \+1 more ↓ ─┘$/);
  assert.match(s.split('\n')[2]!, /─ ↑ 23 more \(11 stale\) {2}24\/32 ─┐$/);
  t.keys('g');
  s = await t.waitFor('the first row', (x) => x.includes(' 1/32 '));
  assert.is(order(s)[0], 'old.01');
}, RULES));

test('60x20: the whole screen, and the help laid out inside it', () => withConsole(async (d, t) => {
  await seed(d);
  t.run(follow(d), { width: 60, height: 20 });
  const s = await t.waitFor('32 types and the trend', (x) => x.includes(' 1/32 ') && x.includes('│last hour:') && x.includes('│  "seq": 1,'));
  assert.equal(body(s), [
    'run site  11 STALE  31 types  poll 300ms  sort type',
    `┌─ readings ${'─'.repeat(40)} 1/32 ─┐`,
    boxed('   TYPE▲           AGE            SEQ  RUN  DATA', 0, 60),
    boxed('', 0, 60),
    ...[1, 2, 3, 4, 5, 6].map((n) => staleRow(n, 60)),
    `└${'─'.repeat(35)} +26 more (5 stale) ↓ ─┘`,
    `┌─ old.01  Ns STALE  max 0.001s  seq 1 ${'─'.repeat(20)}┐`,
    boxed('last hour:', 0, 60),
    boxed(`v${' '.repeat(46)}▄ 1..1  1`, 0, 60),
    boxed('', 0, 60),
    boxed('{', 0, 60),
    boxed('  "seq": 1,', 0, 60),
    `└${'─'.repeat(58)}┘`,
    'j/k move  c chart  / filter  s sort  p pause  ? help  q quit',
  ]);
  t.keys('?');
  const h = await t.waitFor('help', (x) => x.includes('─ keys '));
  const lines = h.split('\n');
  assert.is(lines[2], `┌┌─ keys ${'─'.repeat(49)}┐┐`);
  assert.equal(lines.slice(3, 17).map((l) => l.slice(1, 59)), HELP_LINES.map((text) => `│ ${text.padEnd(55)}│`));
  assert.is(lines[17]!.slice(1, 59), `└${'─'.repeat(56)}┘`);
  assert.ok(lines.slice(0, 20).every((l) => [...l].length <= 60), 'nothing past the right edge');
}, RULES));

test('keys: r reverses (the sorted column marked), Esc clears the filter, Tab scrolls the detail pane, "p resume" while paused', () => withConsole(async (d, t) => {
  await seed(d);
  t.run(follow(d), { width: 80, height: 24 });
  let s = await t.waitFor('32 types', (x) => x.includes(' 1/32 '));
  t.keys('r');
  s = await t.waitFor('reversed', (x) => x.split('\n')[1]!.endsWith('sort type reversed'));
  assert.match(s.split('\n')[3]!, /^│ {3}TYPE▼ /);
  assert.equal(order(s), ['old.08', 'old.07', 'old.06', 'old.05', 'old.04', 'old.03', 'old.02', 'old.01'], 'the selection stays on old.01, now 11th');
  assert.match(s.split('\n')[2]!, /─ ↑ 3 more \(3 stale\) {2}11\/32 ─┐$/, 'power, old.10 and old.09 above: the stale rows stay on top, reversed');
  t.keys('s');
  s = await t.waitFor('by age, reversed', (x) => x.split('\n')[1]!.endsWith('sort age reversed'));
  assert.match(s.split('\n')[3]!, /^│ {3}TYPE {12}AGE▼ /);
  t.keys('r', 's', 's');
  s = await t.waitFor('by type again', (x) => x.split('\n')[1]!.endsWith('sort type'));

  t.keys('/', 's', 'e', 'n', 's', 'o', 'r', '-', '1', 'Enter');
  s = await t.waitFor('filtered', (x) => x.includes('filter "sensor-1"'));
  assert.equal(order(s).length, 8);
  assert.match(s.split('\n')[1]!, /^run site {2}11 STALE {2}10\/31 types/, 'the stale count is of every type, whatever the filter; types count readings (power is missing)');
  t.keys('Escape');
  s = await t.waitFor('filter cleared', (x) => x.split('\n')[1]!.endsWith('sort type'));
  assert.match(s, / 22\/32 /, 'the selection stays on sensor-10, among every row again');
  t.keys('g');
  await t.waitFor('the first row', (x) => x.includes(' 1/32 '));

  await t.waitFor('the trend', (x) => x.includes('│last hour:'));
  t.keys('Tab');
  s = await t.waitFor('detail focused', (x) => x.includes('┌─ ▸ old.01 '));
  t.keys('j', 'j', 'j', 'j', 'j');
  s = await t.waitFor('detail scrolled five lines (the trend, a blank line, "{", "seq")', (x) => x.split('\n')[15]!.startsWith('│  "ts": '));
  assert.equal(order(s)[0], 'old.01', 'j moved the pane, not the selection');
  assert.match(s, / 1\/32 /);
  t.keys('Escape');
  s = await t.waitFor('table focused', (x) => x.includes('┌─ old.01 '));
  t.keys('j');
  s = await t.waitFor('the selection moves again', (x) => x.includes(' 2/32 '));

  t.keys('p');
  s = await t.waitFor('paused', (x) => x.split('\n')[23] === 'j/k move  Enter detail  / filter  s sort  r reverse  p resume  ? help  q quit');
  assert.match(s.split('\n')[0]!, /  PAUSED  /);
  t.keys('p');
  await t.waitFor('live', (x) => x.split('\n')[23]!.includes('p pause'));
}, RULES));

test('the change mark: "*" a value changed since the frame drawn before (changed keys in reverse video, like watch -d), kept while it keeps changing, gone at the next frame it did not', () => withConsole(async (d, t) => {
  await post(d, 'weather', { temp_c: 4, sky: 'clear' });
  await post(d, 'dome', 'open');
  await post(d, 'power', { v: 0 });
  t.run([...follow(d).slice(0, -1), '2'], { width: 80, height: 24 });
  /** Mark, type, seq, run and data of every row (the ages move on). */
  const marks = (x: string) => ['dome', 'power', 'weather'].map((type) => { const r = row(x, type); return r && [r[0], r[1], ...r.slice(3)].join(' '); });
  let s = await t.waitFor('three rows', (x) => marks(x).every((r) => r !== undefined));
  assert.equal(marks(s), ['  dome 2 - open', '  power 3 - v=0', '  weather 1 - temp_c=4 sky=clear'], 'the first view marks nothing');

  await post(d, 'weather', { temp_c: 5, sky: 'clear' });
  s = await t.waitFor('weather changed', (x) => marks(x)[2] !== '  weather 1 - temp_c=4 sky=clear');
  assert.equal(marks(s), ['  dome 2 - open', '  power 3 - v=0', '* weather 4 - temp_c=5 sky=clear']);
  const line = t.screen(true).split('\n').find((l) => l.includes('weather'))!;
  assert.match(line, /7m(?:\x1b\[[0-9;]*m)*temp_c=5\x1b\[0m(?:\x1b\[[0-9;]*m)* sky=clear/, 'only the changed part in reverse video');
  const age = row(s, 'weather')![2];
  s = await t.waitFor('a frame without readings (the ages move on)', (x) => row(x, 'weather')![2] !== age, 10_000);
  assert.equal(marks(s), ['  dome 2 - open', '  power 3 - v=0', '* weather 4 - temp_c=5 sky=clear'], 'the mark stays until a frame brings readings');

  // power changes again and again (each reading once the one before is on screen): only it stays marked
  for (let v = 1; v <= 5; v++) {
    await post(d, 'power', { v });
    s = await t.waitFor(`power v=${v}`, (x) => marks(x)[1]!.endsWith(` v=${v}`));
    assert.equal(marks(s), ['  dome 2 - open', `* power ${4 + v} - v=${v}`, '  weather 4 - temp_c=5 sky=clear'], `power v=${v}`);
  }
  await post(d, 'dome', 'open');
  s = await t.waitFor('dome read again', (x) => marks(x)[0] === '  dome 10 - open');
  assert.equal(marks(s), ['  dome 10 - open', '  power 9 - v=5', '  weather 4 - temp_c=5 sky=clear'], 'the same value again is no change; power stopped changing');
  assert.not.match(t.screen(true).split('\n').find((l) => l.includes(' dome '))!, /\x1b\[7m/, 'nothing highlighted');
}));

test('a reading posted with its own max_age_s is judged by it: STALE and counted, until a reading without it', () => withConsole(async (d, t) => {
  await request(d.url, '/event', { method: 'POST', body: { type: 'dome', data: 'open', max_age_s: 0.001 } });
  await post(d, 'weather', { temp_c: 4 });
  t.run(follow(d), { width: 80, height: 24 });
  // the daemon records meridian.stale for dome as its limit passes (before the console may have
  // the daemon's limits: wait for the missing power row too)
  let s = await t.waitFor('dome stale, its meridian.stale, the missing power', (x) => x.split('\n')[1]!.includes(' STALE ')
    && row(x, 'meridian.stale') !== undefined && row(x, 'power') !== undefined);
  assert.is(s.split('\n')[1], 'run site  2 STALE  3 types  poll 300ms  sort type', 'types with a reading; the missing power counts as stale');
  const status = await cli(['status', '--host', '127.0.0.1', '--port', String(d.port)]);
  assert.match(status.stdout, /  site  3 types  2 stale\nrollups ok( {2}last rebuild \S+ \([^)]*\))?\n$/, 'telemetry status counts as the console does');
  assert.equal(order(s), ['dome', 'power', 'meridian.stale', 'weather'], 'stale and missing on top');
  assert.equal(row(s, 'dome')!.slice(3), ['1', '-', 'open']);
  assert.match(row(s, 'dome')![2]!, /^\ds STALE$/);
  assert.match(row(s, 'weather')![2]!, /^\ds$/, 'weather by the daemon\'s *=3600');
  await post(d, 'dome', 'closed');
  s = await t.waitFor('dome read again without its own limit, and meridian.fresh', (x) => row(x, 'dome')?.[3] === '4' && row(x, 'meridian.fresh') !== undefined);
  assert.is(s.split('\n')[1], 'run site  1 STALE  4 types  poll 300ms  sort type');
  assert.equal(order(s), ['power', 'dome', 'meridian.fresh', 'meridian.stale', 'weather']);
  assert.match(row(s, 'dome')![2]!, /^\ds$/);
}, RULES));

/** The distinct SGR parameters a capture with escapes uses. */
function sgrCodes(escaped: string): string[] {
  return [...new Set([...escaped.matchAll(/\x1b\[([0-9;]*)m/g)].flatMap((m) => m[1]!.split(';')))].sort();
}

test('--theme night is dim red on black: no bold, no bright or other colours; stale rows underlined', () => withConsole(async (d, t) => {
  await seed(d);
  t.run([...follow(d), '--theme', 'night'], { width: 80, height: 24 });
  await t.waitFor('32 types', (x) => x.includes(' 1/32 '));
  const escaped = t.screen(true);
  assert.equal(sgrCodes(escaped).filter((c) => !['0', '4', '7', '24', '27', '30', '31', '39', '40', '41', '49'].includes(c)), [], 'only red, black, underline and reverse');
  assert.ok(sgrCodes(escaped).includes('31') && sgrCodes(escaped).includes('40'), 'red on black');
  assert.match(escaped.split('\n')[6]!, /\x1b\[4m/, 'a stale row is underlined');
}, RULES));

for (const [name, env, term] of [['NO_COLOR=1', { NO_COLOR: '1' }, undefined], ['TERM=vt100', {}, 'vt100']] as const) {
  test(`${name}: no colour codes at all; stale rows in bold, the selection in reverse video`, () => withConsole(async (d, t) => {
    await seed(d);
    t.run(follow(d), { width: 80, height: 24, env, term });
    await t.waitFor('32 types', (x) => x.includes(' 1/32 '));
    const escaped = t.screen(true);
    assert.not.match(escaped, COLOUR);
    assert.match(escaped.split('\n')[1]!, /\x1b\[1m11 STALE/);
    assert.match(escaped.split('\n')[5]!, /\x1b\[1;7m {2}old\.01 /, 'the selected (stale) row in bold reverse video');
    assert.match(escaped.split('\n')[6]!, /\x1b\[1m {2}old\.02 /, 'a stale row in bold');
  }, RULES));
}

test('TERM=dumb: no console (it cannot place the cursor): one JSON line per reading', () => withConsole(async (d, t) => {
  const weather = (await post(d, 'weather', { temp_c: 4 })).text;
  t.run(follow(d), { width: 200, height: 24, term: 'dumb' });
  const s = await t.waitFor('a JSON line', (x) => x.split('\n')[0] === weather);
  assert.not.match(t.screen(true), /\x1b\[/);
  assert.is(t.display('#{alternate_on}'), '0');
  t.keys('C-c');
  assert.equal(await t.output(), { lines: [weather], exit: 0, restored: true });
  void s;
}));

test('"connecting" and "no answer" until the daemon first answers, never "run site" before it', async () => {
  const port = await freePort();
  const t = new Terminal();
  let d: ChildDaemon | undefined;
  try {
    t.run(['current', '--follow', '--host', '127.0.0.1', '--port', String(port), '--interval', '0.3'], { width: 80, height: 24 });
    const s = await t.waitFor('no daemon yet', (x) => x.includes('DISCONNECTED'));
    assert.equal(s.split('\n').slice(0, 2), [`meridian 127.0.0.1:${port}  DISCONNECTED  retrying  updated never`, 'no answer from the daemon yet']);
    d = await spawnDaemon({ port });
    const live = await t.waitFor('live', (x) => x.includes('  LIVE  '));
    assert.is(live.split('\n')[1], 'run site  0 types  poll 300ms  sort type');
  } finally {
    t.kill();
    if (d) {
      d.child.kill('SIGTERM');
      await d.exited;
      removeDir(d.siteDir);
    }
  }
});

test('Ctrl-Z suspends (the shell gets its screen back), fg resumes with the console redrawn', () => withConsole(async (d, t) => {
  await seed(d);
  // an interactive shell with job control, the command typed at its prompt
  t.tmux('-u', '-f', '/dev/null', 'new-session', '-d', '-s', t.target, '-x', '80', '-y', '24',
    `env -i PATH="${process.env.PATH}" HOME=/tmp LANG=C.UTF-8 TERM=xterm-256color PS1='$ ' bash --norc --noprofile -i`, ';', 'set-option', '-g', 'status', 'off');
  await t.waitFor('the prompt', (x) => x.startsWith('$'));
  t.keys(`NCURSES_NO_UTF8_ACS=1 ${process.execPath} ${TELEMETRY} ${follow(d).join(' ')}`, 'Enter');
  await t.waitFor('the console', (x) => x.includes(' 1/32 '));
  t.keys('C-z');
  let s = await t.waitFor('stopped', (x) => /\[1\]\+ +Stopped/.test(x));
  assert.is(t.display('#{alternate_on}'), '0', 'the main screen is back');
  assert.not.match(s, /readings/);
  t.keys('f', 'g', 'Enter');
  s = await t.waitFor('redrawn', (x) => x.includes(' 1/32 ') && x.includes('  LIVE  '));
  assert.is(t.display('#{alternate_on}'), '1');
  t.keys('j');
  await t.waitFor('keys work again', (x) => x.includes(' 2/32 '));
  t.keys('q');
  s = await t.waitFor('back at the prompt', (x) => x.trimEnd().endsWith('$'));
  assert.is(t.display('#{alternate_on}'), '0');
  assert.ok(s.split('\n').every((l) => !/^\s+\S$/.test(l)), 'nothing drawn on the shell\'s screen while stopped');
}, RULES));

test.run();
