import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, ROOT, spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';

// The real console (node dist/tui/run.js) in a real pseudo-terminal: tmux on a private
// socket, keys sent with send-keys, the screen read with capture-pane. Every wait polls the
// screen until a condition holds, with a deadline.

const RUN_JS = path.join(ROOT, 'dist', 'tui', 'run.js');
const DEADLINE_MS = 15_000;
let sessions = 0;

/** One tmux server with one session running the console. */
class Tmux {
  readonly socket = `meridian-tui-${process.pid}-${++sessions}`;
  private readonly env = { ...cleanEnv(), TERM: 'xterm-256color', LANG: 'C.UTF-8' };

  tmux(...args: string[]): string {
    return execFileSync('/usr/bin/tmux', ['-L', this.socket, ...args], { env: this.env, encoding: 'utf8' });
  }

  /** Start the console at width x height; the pane stays (running cat) after it exits and says how. */
  start(args: string[], opts: { width?: number; height?: number; term?: string } = {}): void {
    const term = opts.term ?? 'xterm-256color';
    const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const script = `B=$(stty -g); TERM=${term} NCURSES_NO_UTF8_ACS=1 LANG=C.UTF-8 '${process.execPath}' '${RUN_JS}' ${quoted} 2>/dev/null; `
      + `echo "EXIT=$?"; [ "$(stty -g)" = "$B" ] && echo TTY-RESTORED; exec cat`;
    this.tmux('-u', '-f', '/dev/null', 'new-session', '-d', '-s', 'c', '-x', String(opts.width ?? 100), '-y', String(opts.height ?? 30),
      'sh', '-c', script, ';', 'set-option', '-g', 'status', 'off');
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', 'c');
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'c', ...keys);
  }

  /** Poll the screen until `ok` holds; fail with the last screen at the deadline. */
  async waitFor(what: string, ok: (screen: string) => boolean): Promise<string> {
    const until = Date.now() + DEADLINE_MS;
    for (;;) {
      const screen = this.screen();
      if (ok(screen)) return screen;
      if (Date.now() > until) assert.unreachable(`timed out waiting for ${what}; screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  kill(): void {
    try { this.tmux('kill-server'); } catch { /* already gone */ }
  }
}

/** The cells of a type's table row: [mark, type, age, seq, run, data]; undefined when not shown. */
function row(screen: string, type: string): string[] | undefined {
  for (const line of screen.split('\n')) {
    const inner = line.slice(1, -1);
    const cells = inner.slice(3).trim().split(/\s{2,}/);
    if (line.startsWith('│') && cells[0] === type) return [inner[1]!, ...cells];
  }
  return undefined;
}

function post(d: ChildDaemon, type: string, data: unknown) {
  return request(d.url, '/event', { method: 'POST', body: { type, data } });
}

function consoleArgs(d: ChildDaemon, ...more: string[]): string[] {
  return ['--host', '127.0.0.1', '--port', String(d.port), '--interval', '0.3', ...more];
}

test('rows appear and update in place; run id, filter and detail keys work', async () => {
  const d = await spawnDaemon();
  const t = new Tmux();
  try {
    await post(d, 'weather', { temp_c: 4, sky: 'clear' });
    await post(d, 'dome', 'open');
    t.start(consoleArgs(d));
    let s = await t.waitFor('both rows', (x) => row(x, 'weather') !== undefined && row(x, 'dome') !== undefined);
    assert.match(s.split('\n')[0]!, /^meridian 127\.0\.0\.1:\d+  LIVE  last poll \d\d:\d\d:\d\dZ$/);
    assert.is(s.split('\n')[1], 'run site  2 types  poll 300ms  sort type');
    assert.equal(row(s, 'weather')!.slice(3), ['1', '-', 'temp_c=4 sky=clear']);
    assert.equal(row(s, 'dome')!.slice(3), ['2', '-', 'open']);

    await post(d, 'weather', { temp_c: 5, sky: 'clear' });
    s = await t.waitFor('weather updated', (x) => row(x, 'weather')?.[3] === '3');
    assert.equal(row(s, 'weather')!.filter((_, i) => i !== 2), ['*', 'weather', '3', '-', 'temp_c=5 sky=clear']);
    assert.ok(['0s', '1s'].includes(row(s, 'weather')![2]!), 'just posted (a busy machine may take a second)');
    assert.is(s.split('\n').filter((l) => l.includes(' weather ')).length, 1, 'one weather row, updated in place');
    await t.waitFor('highlight gone', (x) => row(x, 'weather')?.[0] === ' ');

    await request(d.url, '/run/start', { method: 'POST', body: { run_id: 'n042' } });
    await post(d, 'dome', 'closed');
    s = await t.waitFor('run header and row', (x) => x.includes('run n042') && row(x, 'dome')?.[5] === 'closed');
    assert.equal(row(s, 'dome')!.slice(3), ['1', 'n042', 'closed']);

    t.keys('/');
    await t.waitFor('filter prompt', (x) => x.trimEnd().endsWith('filter:'));
    t.keys('d', 'o', 'm', 'Enter');
    s = await t.waitFor('filtered', (x) => x.includes('filter "dom"') && row(x, 'weather') === undefined);
    assert.is(s.split('\n')[1], 'run n042  1/2 types  poll 300ms  sort type  filter "dom"');
    assert.ok(row(s, 'dome'));
    assert.match(s, /"data": "closed"/);

    t.keys('Enter');
    s = await t.waitFor('detail hidden', (x) => !x.includes('"data": "closed"'));
    assert.ok(row(s, 'dome'), 'the table stays');
    t.keys('Enter');
    await t.waitFor('detail shown again', (x) => x.includes('"run_id": "n042"'));

    t.keys('p');
    s = await t.waitFor('paused', (x) => /  PAUSED  last poll \d\d:\d\d:\d\dZ$/.test(x.split('\n')[0]!));
    await post(d, 'dome', 'half');
    assert.is(row(t.screen(), 'dome')![5], 'closed');
    t.keys('p');
    await t.waitFor('resumed with the new reading', (x) => x.includes('LIVE') && row(x, 'dome')?.[5] === 'half');
  } finally {
    t.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('resize to 80x24 under TERM=screen-256color re-lays out; the summary is cut first', async () => {
  const d = await spawnDaemon();
  const t = new Tmux();
  try {
    await post(d, 'weather station north', { temp_c: -3.5, humidity: 81, wind_kmh: 12, sky: 'partly cloudy', gust: 30 });
    t.start(consoleArgs(d), { term: 'screen-256color' });
    await t.waitFor('row at 100 columns', (x) => row(x, 'weather station north') !== undefined);
    t.tmux('resize-window', '-t', 'c', '-x', '80', '-y', '24');
    const s = await t.waitFor('80x24 layout', (x) => x.split('\n')[2]!.length === 80 && x.split('\n')[23]!.startsWith('j/k move'));
    const lines = s.split('\n');
    assert.is(lines.length, 25); // 24 rows + trailing newline
    assert.ok(lines.every((l) => l.length <= 80));
    assert.is(lines[22], `└${'─'.repeat(78)}┘`);
    assert.is(lines[23], 'j/k move  Enter detail  / filter  s sort  p pause  ? help  q quit');
    assert.equal(row(s, 'weather station north')!.slice(3), ['1', '-', 'temp_c=-3.5 humidity=81 wi…']);
  } finally {
    t.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('daemon stopped: DISCONNECTED with readings kept; restarted: LIVE again', async () => {
  let d = await spawnDaemon();
  const t = new Tmux();
  try {
    await post(d, 'mount', { ra: 12.5 });
    t.start(consoleArgs(d));
    await t.waitFor('live row', (x) => x.includes('LIVE') && row(x, 'mount') !== undefined);
    d.child.kill('SIGTERM');
    await d.exited;
    let s = await t.waitFor('disconnected', (x) => x.includes('DISCONNECTED'));
    assert.match(s.split('\n')[0]!, /  DISCONNECTED  retrying every 300ms  last poll \d\d:\d\d:\d\dZ$/);
    assert.equal(row(s, 'mount')!.slice(3), ['1', '-', 'ra=12.5'], 'the last readings stay');
    d = await spawnDaemon({ port: d.port, siteDir: d.siteDir });
    await post(d, 'mount', { ra: 13 });
    s = await t.waitFor('live again with the new reading', (x) => x.includes('LIVE') && row(x, 'mount')?.[3] === '2');
    assert.equal(row(s, 'mount')!.slice(3), ['2', '-', 'ra=13']);
  } finally {
    t.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('q exits 0 and restores the terminal', async () => {
  const d = await spawnDaemon();
  const t = new Tmux();
  try {
    t.start(consoleArgs(d));
    await t.waitFor('console up', (x) => x.includes('LIVE'));
    assert.is(t.tmux('display', '-p', '-t', 'c', '#{alternate_on}').trim(), '1');
    t.keys('q');
    const s = await t.waitFor('exit line', (x) => x.includes('EXIT='));
    assert.equal(s.trim().split('\n'), ['EXIT=0', 'TTY-RESTORED']);
    assert.is(t.tmux('display', '-p', '-t', 'c', '#{alternate_on} #{cursor_flag}').trim(), '0 1');
  } finally {
    t.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('Ctrl-C also exits 0, even from the filter prompt', async () => {
  const d = await spawnDaemon();
  const t = new Tmux();
  try {
    t.start(consoleArgs(d));
    await t.waitFor('console up', (x) => x.includes('LIVE'));
    t.keys('/');
    await t.waitFor('filter prompt', (x) => x.trimEnd().endsWith('filter:'));
    t.keys('C-c');
    const s = await t.waitFor('exit line', (x) => x.includes('EXIT='));
    assert.equal(s.trim().split('\n'), ['EXIT=0', 'TTY-RESTORED']);
  } finally {
    t.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('a single type is shown large; --no-color draws no colour; stale readings say STALE', async () => {
  const d = await spawnDaemon();
  const t = new Tmux();
  try {
    await post(d, '天気 météo', { 空: '晴れ', note: 'ensoleillé' });
    await post(d, 'dome', 'open');
    t.start(consoleArgs(d, '--type', '天気 météo', '--no-color', '--stale', '1'));
    const s = await t.waitFor('stale single row', (x) => row(x, '天気 météo')?.[2]?.endsWith('STALE') === true);
    assert.is(s.split('\n')[1], 'run site  type 天気 météo  poll 300ms');
    assert.equal(row(s, '天気 météo')!.slice(3), ['1', '-', '空=晴れ note=ensoleillé']);
    assert.is(row(s, 'dome'), undefined);
    assert.match(s, /"空": "晴れ"/);
    const coloured = t.tmux('capture-pane', '-p', '-e', '-t', 'c');
    assert.not.match(coloured, /\x1b\[(?:[0-9;]*;)?(?:3[0-7]|4[0-7]|38;5;\d+|48;5;\d+)[;m]/, 'no colour codes');
  } finally {
    t.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('1,000 types: End and Home jump through them, sort by seq', async () => {
  const d = await spawnDaemon();
  const t = new Tmux();
  try {
    for (let i = 0; i < 1000; i++) await post(d, `sensor-${String(i).padStart(4, '0')}`, i);
    t.start(consoleArgs(d));
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
  } finally {
    t.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test.run();
