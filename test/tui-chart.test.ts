import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { Terminal } from './helpers/tmux.js';

// The console's chart view (`c`, docs/console.md "Chart") in a real terminal (tmux) against a
// real daemon: readings posted with their ts 50, 40 and 30 minutes ago, the chart read through
// the rollups (step=auto at the chart's width), the span keys 1 6 2 7, j/k the field, a live
// reading appended; a span with no readings, a daemon without rollups, NO_COLOR.

const MINUTE = 60_000;

/** POST readings of `type` (`data`, minutes ago) as one NDJSON batch. */
async function readings(d: ChildDaemon, type: string, rows: [data: object, minutesAgo: number][]): Promise<void> {
  const now = Date.now();
  const body = rows.map(([data, ago]) => JSON.stringify({ type, data, ts: new Date(now - ago * MINUTE).toISOString() })).join('\n');
  const posted = await request(d.url, '/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
  assert.is(posted.status, 200, posted.text);
}

const follow = (d: ChildDaemon, type: string) => ['current', type, '--follow', '--host', '127.0.0.1', '--port', String(d.port), '--interval', '0.3'];

/** The chart box's inner lines (between its side borders), from its label line down. */
function chartBox(screen: string): string[] {
  const lines = screen.split('\n');
  const top = lines.findIndex((l) => l.includes(' chart '));
  return lines.slice(top + 1).filter((l) => l.startsWith('│')).map((l) => l.slice(1, -1).trimEnd());
}

/** How many braille cells with dots the chart's plot holds. */
const dots = (box: string[]): number => box.join('').split('').filter((c) => c > '\u2800' && c <= '\u28ff').length;

/** The y axis labels of the chart rows (the text before ` ┤`), in row order. */
const axis = (box: string[]): string[] => box.filter((l) => l.includes(' ┤')).map((l) => l.slice(0, l.indexOf(' ┤')));

async function withConsole(args: string[], fn: (d: ChildDaemon, tty: Terminal) => Promise<void>): Promise<void> {
  const d = await spawnDaemon({ args });
  const tty = new Terminal();
  try {
    await fn(d, tty);
    tty.keys('q');
    assert.is((await tty.output()).exit, 0);
  } finally {
    tty.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
}

for (const [name, env] of [['colours', {}], ['NO_COLOR', { NO_COLOR: '1' }]] as const) {
  test(`the chart of a type's fields over 1 h / 6 h / 24 h / 7 d at 60x20, live readings appended (${name})`, () => withConsole([], async (d, tty) => {
    await readings(d, 'weather', [[{ temp: 10, wind: 3 }, 50], [{ temp: 20, wind: 3 }, 40], [{ temp: 30, wind: 3 }, 30]]);
    tty.run(follow(d, 'weather'), { width: 60, height: 20, env });
    await tty.waitFor('the table', (s) => s.includes('weather'));
    tty.keys('c');
    let screen = await tty.waitFor('the chart', (s) => s.includes('data.temp (1/2)'));
    let box = chartBox(screen);
    assert.is(box[0], 'data.temp (1/2)  last 1 h  step 1m  mean, UTC');
    // 12 rows of 4 dots for 10..30: the round values at their rows, the axis under them
    assert.equal(axis(box), ['30', '  ', '  ', '25', '  ', '  ', '20', '  ', '15', '  ', '  ', '10']);
    assert.match(box[13]!, /^ {3}└─{54}$/);
    assert.ok(screen.includes('┌─ chart  1:1h 6:6h 2:24h 7:7d  j/k field  c close ─'), screen);
    for (const [key, title] of [['2', 'last 24 h  step 15m'], ['7', 'last 7 d  step 1h'], ['6', 'last 6 h  step 1m']]) {
      tty.keys(key!);
      screen = await tty.waitFor(`the span of ${key}`, (s) => chartBox(s)[0] === `data.temp (1/2)  ${title}  mean, UTC`);
    }
    tty.keys('j');
    screen = await tty.waitFor('the next field', (s) => chartBox(s)[0] === 'data.wind (2/2)  last 6 h  step 1m  mean, UTC');
    // one value: the box widened by half the value each way
    assert.equal(axis(chartBox(screen)).filter((l) => l.trim() !== ''), ['4.5', '  4', '3.5', '  3', '2.5', '  2', '1.5']);
    tty.keys('k', '1');
    await tty.waitFor('back on temp over 1 h', (s) => chartBox(s)[0] === 'data.temp (1/2)  last 1 h  step 1m  mean, UTC');
    await request(d.url, '/event', { method: 'POST', body: { type: 'weather', data: { temp: 50, wind: 3 } } });
    screen = await tty.waitFor('the live reading', (s) => axis(chartBox(s))[0] === '50');
    assert.equal(axis(chartBox(screen)).filter((l) => l.trim() !== ''), ['50', '40', '30', '20', '10']);
    tty.keys('escape');
    await tty.waitFor('the chart closed', (s) => !s.includes('┌─ chart') && s.includes('┌─ readings'));
  }));
}

test('readings near a double\'s range: the live bucket\'s mean stays finite (no sum overflows), both points drawn', () => withConsole([], async (d, tty) => {
  const MAX = 1.7976931348623157e308;
  await readings(d, 'weather', [[{ temp: 0 }, 30]]);
  tty.run(follow(d, 'weather'), { width: 60, height: 20 });
  await tty.waitFor('the table', (s) => s.includes('weather'));
  tty.keys('c');
  await tty.waitFor('the chart', (s) => s.includes('data.temp (1/1)'));
  // two live readings in one minute: their sum would be Infinity, their mean is MAX
  const now = new Date().toISOString();
  for (let i = 0; i < 2; i++) await request(d.url, '/event', { method: 'POST', body: { type: 'weather', data: { temp: MAX }, ts: now } });
  const screen = await tty.waitFor('both buckets drawn', (s) => dots(chartBox(s)) >= 2);
  // the stored 0 on the bottom row, the live MAX on the top row, no other dot
  const plot = chartBox(screen).filter((l) => l.includes('┤')).map((l) => l.slice(l.indexOf('┤') + 1));
  assert.is(dots(plot.slice(0, 1)), 1, screen);
  assert.is(dots(plot.slice(-1)), 1, screen);
  assert.is(dots(plot.slice(1, -1)), 0, screen);
  // the axis labelled over the finite range (an overflowed mean left only the 0)
  assert.equal(axis(chartBox(screen)).map((l) => l.trim()).filter((l) => l !== ''), ['1.5e+308', '1e+308', '5e+307', '0']);
}));

test('a span without readings says so; a daemon without rollups says so', async () => {
  await withConsole([], async (d, tty) => {
    await readings(d, 'dome', [[{ open: 1 }, 3 * 60]]);
    tty.run(follow(d, 'dome'), { width: 60, height: 20 });
    await tty.waitFor('the table', (s) => s.includes('dome'));
    tty.keys('c');
    const screen = await tty.waitFor('no readings', (s) => chartBox(s)[1] === 'no numeric readings of dome in the last 1 h');
    assert.is(chartBox(screen)[0], 'dome  last 1 h  step 1m');
    tty.keys('6');
    await tty.waitFor('the reading of 3 h ago', (s) => chartBox(s)[0] === 'data.open (1/1)  last 6 h  step 1m  mean, UTC');
  });
  await withConsole(['--rollups', 'off'], async (d, tty) => {
    await readings(d, 'dome', [[{ open: 1 }, 5]]);
    tty.run(follow(d, 'dome'), { width: 60, height: 20 });
    await tty.waitFor('the table', (s) => s.includes('dome'));
    tty.keys('7');
    const screen = await tty.waitFor('no rollups', (s) => chartBox(s)[1] === 'the daemon keeps no rollups (--rollups off): no chart');
    assert.is(chartBox(screen)[0], 'dome  last 7 d');
  });
});

test.run();
