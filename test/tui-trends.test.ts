import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';
import { Terminal } from './helpers/tmux.js';

// The console in a real terminal (tmux): LIVE while the stream is connected, POLLING against a
// daemon without /stream, and the trend of the selected type (seeded from /history, extended live).

test('the detail pane shows a sparkline per numeric field, seeded from the history and extended live; ASCII under NO_COLOR', async () => {
  const d = await spawnDaemon();
  const tty = new Terminal();
  const plain = new Terminal();
  try {
    for (const t of [1.5, 2.5, 3.5]) await request(d.url, '/event', { body: { type: 'weather', data: { temp_c: t, sky: 'clear' } } });
    const args = ['current', 'weather', '--follow', '--host', '127.0.0.1', '--port', String(d.port), '--interval', '0.3'];
    tty.run(args, { width: 80, height: 24 });
    plain.run(args, { width: 80, height: 24, env: { NO_COLOR: '1' } });
    let screen = await tty.waitFor('the trend', (s) => /│temp_c +▄ 1\.5\.\.3\.5 {2}3\.5 +│/.test(s));
    assert.match(screen.split('\n')[0]!, /  LIVE  updated \d\d:\d\d:\d\dZ$/);
    assert.ok(screen.includes('│last hour:'), screen);
    await plain.waitFor('the ASCII trend', (s) => /│temp_c +~ 1\.5\.\.3\.5 {2}3\.5 +│/.test(s));
    await request(d.url, '/event', { body: { type: 'weather', data: { temp_c: -4, sky: 'clear' } } });
    // every point is in the last minute: one column, their mean, in the middle of its own range
    await tty.waitFor('the trend extended', (s) => /│temp_c +▄ -4\.\.3\.5 {2}-4 +│/.test(s));
    tty.keys('q');
    plain.keys('q');
    assert.is((await tty.output()).exit, 0);
  } finally {
    tty.kill();
    plain.kill();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('against a daemon without /stream the console polls and says POLLING, not LIVE', async () => {
  const server = http.createServer((req, res) => {
    // like a daemon before /stream, it answers /current whatever the query (the console asks ?freshness=false)
    const path = req.url?.split('?')[0];
    const body = path === '/current' ? '{"current":{"dome":{"seq":1,"ts":"2026-03-18T00:00:01.000Z","type":"dome","data":"open","meta":{}}}}'
      : path === '/ready' ? '{"ready":true,"run_active":false,"version":"0.0.9"}' : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(body ?? `{"detail":"There is no ${req.url} here.","code":"NOT_FOUND"}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const tty = new Terminal();
  try {
    tty.run(['current', '--follow', '--host', '127.0.0.1', '--port', String((server.address() as AddressInfo).port), '--interval', '0.3'], { width: 80, height: 24 });
    const screen = await tty.waitFor('polling', (s) => s.includes('POLLING') && s.includes('dome'));
    assert.match(screen.split('\n')[0]!, /^meridian 127\.0\.0\.1:\d+  POLLING every 300ms  updated \d\d:\d\d:\d\dZ$/);
    tty.keys('q');
    assert.is((await tty.output()).exit, 0);
  } finally {
    tty.kill();
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
