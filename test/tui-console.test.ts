import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ageless, boxed, COLOUR, follow, order, post, row, selectedType, tableRows, withConsole, withDaemon } from './helpers/console-screen.js';
import { spawnDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { Terminal } from './helpers/tmux.js';
import { HELP_LINES } from '../tui/help.js';

// The live console through the real command line, `telemetry current [TYPE] --follow`, in a
// real pseudo-terminal (tmux, test/helpers/tmux.ts) against a real daemon (a child process).
// Keys go in with send-keys, the screen is read with capture-pane; every wait polls the
// screen until a condition holds, with a deadline.

test('rows appear and update in place; run id, filter and detail keys work; p pauses', () => withConsole(async (d, t) => {
  await post(d, 'weather', { temp_c: 4, sky: 'clear' });
  await post(d, 'dome', 'open');
  t.run(follow(d));
  let s = await t.waitFor('both rows', (x) => row(x, 'weather') !== undefined && row(x, 'dome') !== undefined);
  assert.match(s.split('\n')[0]!, new RegExp(`^meridian 127\\.0\\.0\\.1:${d.port}  LIVE  updated \\d\\d:\\d\\d:\\d\\dZ$`));
  assert.is(s.split('\n')[1], 'run site  2 types  poll 300ms  sort type');
  assert.equal(row(s, 'weather')!.slice(3), ['1', '-', 'temp_c=4 sky=clear']);
  assert.equal(row(s, 'dome')!.slice(3), ['2', '-', 'open']);

  await post(d, 'weather', { temp_c: 5, sky: 'clear' });
  s = await t.waitFor('weather updated', (x) => row(x, 'weather')?.[3] === '3');
  assert.equal(row(s, 'weather')!.filter((_, i) => i !== 2), ['*', 'weather', '3', '-', 'temp_c=5 sky=clear']);
  assert.ok(['0s', '1s'].includes(row(s, 'weather')![2]!), 'just posted (a busy machine may take a second)');
  assert.is(s.split('\n').filter((l) => l.includes(' weather ')).length, 1, 'one weather row, updated in place');

  await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'n042' } });
  await post(d, 'dome', 'closed');
  s = await t.waitFor('run header and row', (x) => x.split('\n')[1]!.startsWith('run n042  ') && row(x, 'dome')?.[5] === 'closed');
  assert.is(s.split('\n')[1], 'run n042  2 types  poll 300ms  sort type');
  assert.equal(row(s, 'dome')!.slice(3), ['1', 'n042', 'closed']);
  assert.equal([row(s, 'dome')![0], row(s, 'weather')![0]], ['*', ' '], 'the next readings: the mark moved to what changed in them');

  t.keys('/');
  await t.waitFor('filter prompt', (x) => x.split('\n')[29] === 'filter:');
  t.keys('w', 'e', 'x', 'BSpace');
  await t.waitFor('the typed filter', (x) => x.split('\n')[29] === 'filter: we');
  t.keys('Escape');
  s = await t.waitFor('prompt cancelled', (x) => x.split('\n')[29]!.startsWith('j/k move'));
  assert.is(s.split('\n')[1], 'run n042  2 types  poll 300ms  sort type', 'Esc leaves the filter as it was');

  t.keys('/', 'd', 'o', 'm', 'Enter'); // typed ahead: the keys that come with the '/' go to the prompt too
  s = await t.waitFor('filtered', (x) => x.includes('filter "dom"') && row(x, 'weather') === undefined);
  assert.is(s.split('\n')[1], 'run n042  1/2 types  poll 300ms  sort type  filter "dom"');
  assert.equal(order(s), ['dome']);
  assert.match(s, /"data": "closed"/);

  t.keys('Enter');
  s = await t.waitFor('detail hidden', (x) => !x.includes('"data": "closed"'));
  assert.equal(order(s), ['dome'], 'the table stays');
  t.keys('Enter');
  await t.waitFor('detail shown again', (x) => x.includes('"run_id": "n042"'));

  t.keys('p');
  s = await t.waitFor('paused', (x) => /  PAUSED  updated \d\d:\d\d:\d\dZ$/.test(x.split('\n')[0]!));
  await post(d, 'dome', 'half');
  assert.is(row(t.screen(), 'dome')![5], 'closed');
  t.keys('p');
  await t.waitFor('resumed with the new reading', (x) => x.includes('  LIVE  ') && row(x, 'dome')?.[5] === 'half');

  t.keys('/', 'C-u', 'z', 'z', 'Enter');
  s = await t.waitFor('nothing matches', (x) => x.split('\n')[1]!.endsWith('filter "zz"'));
  assert.is(s.split('\n')[1], 'run n042  0/2 types  poll 300ms  sort type  filter "zz"');
  assert.equal(order(s), []);
  assert.is(s.split('\n')[18], `│${'no type matches the filter "zz"'.padEnd(98)}│`);
}));

test('the console\'s table and detail pane show data and meta as the daemon sent them (-10.0, 20 digits, escapes)', () => withConsole(async (d, t) => {
  const body = String.raw`{"type":"weather","data":{"t":-10.0,"big":12345678901234567890,"s":"\u00e9"},"meta":{"n":1.50}}`;
  assert.is((await request(d.url, '/event', { body, headers: { 'content-type': 'application/json' } })).status, 200);
  t.run(follow(d, 'weather'));
  const s = await t.waitFor('the detail pane', (x) => x.includes('"n": 1.50'));
  for (const text of ['"t": -10.0,', '"big": 12345678901234567890,', String.raw`"s": "\u00e9"`]) assert.ok(s.includes(text), `${text} in\n${s}`);
  assert.ok(s.includes(' t=-10.0 big=12345678901234567890 s=é'), `the table's summary as spelled in\n${s}`);
}));

test('current TYPE on a terminal: the panel lays out the daemon\'s text', () => withConsole(async (d, t) => {
  const body = String.raw`{"type":"weather","data":{"t":-10.0,"s":"\u00e9"}}`;
  assert.is((await request(d.url, '/event', { body, headers: { 'content-type': 'application/json' } })).status, 200);
  t.run(['current', 'weather', '--host', '127.0.0.1', '--port', String(d.port)]);
  const s = await t.waitFor('the panel', (x) => x.includes('"t": -10.0,'));
  assert.ok(s.includes(String.raw`          "s": "\u00e9"`), s);
}));

test('80x24 from the start, TERM=xterm-256color and TERM=screen-256color: the whole screen; a unicode type is aligned', () => withDaemon(async (d) => {
  const dome = (await post(d, 'dome status', { shutter: 'open', azimuth: 212.5 })).json;
  await post(d, 'weather', { temp_c: 4.1, humidity: 82, wind_kmh: 14, sky: 'partly cloudy' });
  await post(d, '天気 météo', { 空: '晴れ' });
  const expected = [ // below the first line, which has the time of the last poll
    'run site  3 types  poll 300ms  sort type',
    `┌─ readings ${'─'.repeat(61)} 1/3 ─┐`,
    boxed('   TYPE▲        AGE            SEQ  RUN  DATA'),
    boxed(''),
    boxed('   dome status  Ns               1  -    shutter=open azimuth=212.5'),
    boxed('   weather      Ns               2  -    temp_c=4.1 humidity=82 wind_kmh=14 …'),
    boxed('   天気 météo   Ns               3  -    空=晴れ', 5),
    ...Array.from({ length: 5 }, () => boxed('')),
    `└${'─'.repeat(78)}┘`,
    `┌─ dome status  Ns  seq 1 ${'─'.repeat(53)}┐`,
    // the trend of the one numeric field: its one reading, in the newest column
    boxed('last hour:'),
    boxed(`azimuth ${' '.repeat(47)}▄ 212.5..212.5  212.5`),
    boxed(''),
    boxed('{'),
    boxed('  "seq": 1,'),
    boxed(`  "ts": "${dome.ts}",`),
    boxed('  "type": "dome status",'),
    `└${'─'.repeat(78)}┘`,
    'j/k move  Enter detail  / filter  s sort  r reverse  p pause  ? help  q quit',
  ];
  for (const term of ['xterm-256color', 'screen-256color']) {
    const t = new Terminal();
    try {
      t.run(follow(d), { width: 80, height: 24, term });
      const s = await t.waitFor(`three rows and the trend (${term})`, (x) => order(x).length === 3 && x.includes('│azimuth '));
      const lines = s.split('\n');
      assert.is(lines.length, 25, '24 lines and the last newline');
      assert.match(lines[0]!, new RegExp(`^meridian 127\\.0\\.0\\.1:${d.port}  LIVE  updated \\d\\d:\\d\\d:\\d\\dZ$`));
      assert.equal(lines.slice(1, 24).map(ageless), expected, term);
    } finally {
      t.kill();
    }
  }
}));

test('resize from 100x30 to 80x24 under TERM=screen-256color re-lays out; the summary is cut first', () => withConsole(async (d, t) => {
  await post(d, 'weather station north', { temp_c: -3.5, humidity: 81, wind_kmh: 12, sky: 'partly cloudy', gust: 30 });
  t.run(follow(d), { term: 'screen-256color' });
  let s = await t.waitFor('row at 100 columns', (x) => row(x, 'weather station north') !== undefined);
  assert.equal(row(s, 'weather station north')!.slice(3), ['1', '-', 'temp_c=-3.5 humidity=81 wind_kmh=12 sky="part…']);
  t.resize(80, 24);
  // the whole new layout drawn (a capture in the middle of the redraw may show the footer before the table's border)
  s = await t.waitFor('80x24 layout', (x) => x.split('\n')[2]!.length === 80 && x.split('\n')[23]!.startsWith('j/k move')
    && x.split('\n')[22] === `└${'─'.repeat(78)}┘`);
  const lines = s.split('\n');
  assert.is(lines.length, 25); // 24 rows + trailing newline
  assert.ok(lines.every((l) => l.length <= 80));
  assert.is(lines[22], `└${'─'.repeat(78)}┘`);
  assert.is(lines[23], 'j/k move  Enter detail  / filter  s sort  r reverse  p pause  ? help  q quit');
  assert.equal(row(s, 'weather station north')!.slice(3), ['1', '-', 'temp_c=-3.5 humidity=81 w…']);
}));

test('daemon stopped: DISCONNECTED with readings kept; restarted: LIVE again', async () => {
  let d = await spawnDaemon();
  const t = new Terminal();
  try {
    await post(d, 'mount', { ra: 12.5 });
    t.run(follow(d));
    await t.waitFor('live row', (x) => x.includes('  LIVE  ') && row(x, 'mount') !== undefined);
    d.child.kill('SIGTERM');
    await d.exited;
    let s = await t.waitFor('disconnected', (x) => x.includes('DISCONNECTED'));
    assert.match(s.split('\n')[0]!, /  DISCONNECTED  retrying  updated \d\d:\d\d:\d\dZ$/);
    assert.equal(row(s, 'mount')!.slice(3), ['1', '-', 'ra=12.5'], 'the last readings stay');
    d = await spawnDaemon({ port: d.port, siteDir: d.siteDir });
    await post(d, 'mount', { ra: 13 });
    s = await t.waitFor('live again with the new reading', (x) => x.includes('  LIVE  ') && row(x, 'mount')?.[3] === '2');
    assert.equal(row(s, 'mount')!.slice(3), ['2', '-', 'ra=13']);
  } finally {
    t.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('q exits 0 and restores the terminal: main screen, cursor shown, stty settings back', () => withConsole(async (d, t) => {
  t.run(follow(d));
  await t.waitFor('console up', (x) => x.includes('  LIVE  '));
  assert.is(t.display('#{alternate_on}'), '1');
  t.keys('q');
  assert.equal(await t.output(), { lines: [], exit: 0, restored: true });
  assert.is(t.display('#{alternate_on} #{cursor_flag}'), '0 1');
}));

test('Ctrl-C also exits 0, even from the filter prompt', () => withConsole(async (d, t) => {
  t.run(follow(d));
  await t.waitFor('console up', (x) => x.includes('  LIVE  '));
  t.keys('/');
  await t.waitFor('filter prompt', (x) => x.trimEnd().endsWith('filter:'));
  t.keys('C-c');
  assert.equal(await t.output(), { lines: [], exit: 0, restored: true }, 'exit 0 (not 130: the key reached the console, not a signal)');
  assert.is(t.display('#{alternate_on} #{cursor_flag}'), '0 1');
}));

test('? shows the keys over the view; ? and Esc close it', () => withConsole(async (d, t) => {
  await post(d, 'dome', 'open');
  t.run(follow(d));
  const before = await t.waitFor('console up', (x) => row(x, 'dome') !== undefined);
  t.keys('?');
  const s = await t.waitFor('help overlay', (x) => x.includes('┌─ keys '));
  const lines = s.split('\n');
  const top = lines.findIndex((l) => l.includes('┌─ keys '));
  const left = lines[top]!.indexOf('┌─ keys ');
  assert.equal([top, left], [7, 21], 'centred on 100x30');
  assert.is(lines[top]!.slice(left, left + 58), `┌─ keys ${'─'.repeat(49)}┐`);
  assert.equal(lines.slice(top + 1, top + 15).map((l) => l.slice(left, left + 58)), HELP_LINES.map((text) => `│ ${text.padEnd(55)}│`));
  assert.is(lines[top + 15]!.slice(left, left + 58), `└${'─'.repeat(56)}┘`);
  assert.is(lines[29], 'j/k move  Enter detail  c chart  / filter  s sort  r reverse  p pause  ? help  q quit');

  const view = (x: string) => x.split('\n').slice(1).map(ageless);
  t.keys('?');
  let closed = await t.waitFor('closed by ?', (x) => !x.includes('┌─ keys '));
  assert.equal(view(closed), view(before), 'the view is back as it was');
  t.keys('?');
  await t.waitFor('help again', (x) => x.includes('┌─ keys '));
  t.keys('Escape');
  closed = await t.waitFor('closed by Esc', (x) => !x.includes('┌─ keys '));
  assert.equal(view(closed), view(before));
}));

test('j/k, up/down, PgDn/PgUp move the selection; the detail pane shows the selected row', () => withConsole(async (d, t) => {
  const types = Array.from({ length: 20 }, (_, i) => `sensor-${String(i + 1).padStart(2, '0')}`);
  for (const [i, type] of types.entries()) await post(d, type, i + 1);
  t.run(follow(d), { width: 80, height: 24 }); // 8 rows show at once: a page is 8
  await t.waitFor('20 rows', (x) => x.includes('20 types') && row(x, 'sensor-01') !== undefined);
  const steps: Array<[string, string]> = [
    ['', 'sensor-01'], ['j', 'sensor-02'], ['j', 'sensor-03'], ['k', 'sensor-02'], ['Down', 'sensor-03'], ['Up', 'sensor-02'],
    ['PgDn', 'sensor-10'], ['PgDn', 'sensor-18'], ['PgDn', 'sensor-20'], ['PgUp', 'sensor-12'], ['PgUp', 'sensor-04'],
    ['PgUp', 'sensor-01'], ['k', 'sensor-01'],
  ];
  for (const [key, type] of steps) {
    if (key) t.keys(key);
    const n = Number(type.slice(-2));
    // the pane: the trend of the selected type's value (one reading), then the envelope
    const s = await t.waitFor(`${key} -> ${type}`, (x) => x.split('\n')[16]!.startsWith(`│value `) && x.split('\n')[16]!.endsWith(` ${n}..${n}  ${n}  │`));
    const lines = s.split('\n');
    assert.match(lines[14]!, new RegExp(`^┌─ ${type}  (\\d{1,2}s|\\d+m\\d\\ds)  seq ${n} ─+┐$`), `${key}: the detail pane's title`);
    assert.equal(lines.slice(15, 20), [boxed('last hour:'), boxed(`value${' '.repeat(65 - 3 * String(n).length)}▄ ${n}..${n}  ${n}`), boxed(''), boxed('{'), boxed(`  "seq": ${n},`)]);
    assert.equal(row(s, type)!.slice(3), [String(n), '-', String(n)], `${key}: the row is on screen`);
    assert.is(selectedType(t.screen(true)), type, `${key}: and drawn selected`);
  }
}));

test('s cycles the sort: type, age (newest first), seq (highest first), type again', () => withConsole(async (d, t) => {
  const site = [await post(d, 'camera', 'idle'), await post(d, 'dome', 'open'), await post(d, 'mount', 'tracking')];
  await request(d.url, '/run/start', { method: 'POST', body: { run_id: '042' } });
  const run = await post(d, 'weather', 'clear');
  const byAge = [...site, run].map((a) => a.json as { type: string; ts: string })
    .sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : a.type < b.type ? -1 : 1)).map((e) => e.type);
  assert.is(byAge[0], 'weather', 'the run reading is the newest');
  t.run(follow(d));
  let s = await t.waitFor('four rows', (x) => order(x).length === 4);
  assert.is(s.split('\n')[1], 'run 042  4 types  poll 300ms  sort type');
  assert.equal(order(s), ['camera', 'dome', 'mount', 'weather']);
  assert.equal(tableRows(s).map((cells) => cells.slice(3)), [['1', '-', 'idle'], ['2', '-', 'open'], ['3', '-', 'tracking'], ['1', '042', 'clear']]);
  t.keys('s');
  s = await t.waitFor('sort age', (x) => x.split('\n')[1]!.endsWith('sort age'));
  assert.equal(order(s), byAge);
  t.keys('s');
  s = await t.waitFor('sort seq', (x) => x.split('\n')[1]!.endsWith('sort seq'));
  assert.equal(order(s), ['mount', 'dome', 'camera', 'weather'], 'seq 3, 2, then the two seq 1 by type');
  t.keys('s');
  s = await t.waitFor('sort type', (x) => x.split('\n')[1]!.endsWith('sort type'));
  assert.equal(order(s), ['camera', 'dome', 'mount', 'weather']);
}));

test('one type (positional TYPE) is shown large; NO_COLOR=1 draws no colour; a reading older than --stale says STALE', () => withConsole(async (d, t) => {
  await post(d, '天気 météo', { 空: '晴れ', note: 'ensoleillé' });
  await post(d, 'dome', 'open');
  t.run(follow(d, '天気 météo', '--stale', '1'), { env: { NO_COLOR: '1' } });
  const s = await t.waitFor('stale single row', (x) => row(x, '天気 météo')?.[2]?.endsWith('STALE') === true);
  assert.is(s.split('\n')[1], 'run site  1 STALE  type 天気 météo  poll 300ms');
  assert.match(row(s, '天気 météo')![2]!, /^\ds STALE$/);
  assert.equal(row(s, '天気 météo')!.slice(3), ['1', '-', '空=晴れ note=ensoleillé']);
  assert.is(row(s, 'dome'), undefined);
  assert.match(s, /"空": "晴れ"/);
  assert.is(s.split('\n')[29], 'Enter detail  c chart  p pause  ? help  q quit', 'no keys that would do nothing here');
  assert.not.match(t.screen(true), COLOUR, 'no colour codes');
}));

test('1,000 types: End and Home jump through them, sort by seq', () => withConsole(async (d, t) => {
  for (let i = 0; i < 1000; i++) await post(d, `sensor-${String(i).padStart(4, '0')}`, i);
  t.run(follow(d));
  await t.waitFor('first rows', (x) => x.includes('1000 types') && row(x, 'sensor-0000') !== undefined);
  t.keys('End');
  let s = await t.waitFor('last row', (x) => row(x, 'sensor-0999') !== undefined && x.includes('"seq": 1000'));
  assert.is(row(s, 'sensor-0000'), undefined);
  t.keys('Home');
  s = await t.waitFor('first row again', (x) => x.includes('"seq": 1,'));
  assert.ok(row(s, 'sensor-0000'));
  t.keys('s', 's', 'Home');
  s = await t.waitFor('sorted by seq, highest first', (x) => x.includes('sort seq') && x.includes('"seq": 1000'));
  assert.equal(row(s, 'sensor-0999')!.slice(3), ['1000', '-', '999']);
}));

test.run();
