import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RunningCli } from './helpers/cli.js';
import { freePort, spawnDaemon, type ChildDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// `telemetry current [TYPE] --follow`, piped: one JSON line (the envelope, as stored) per new
// current reading, no repeats, across daemon restarts, with the losses said on stderr.

async function stopDaemon(d: ChildDaemon): Promise<void> {
  if (d.child.exitCode === null) d.child.kill('SIGTERM');
  await d.exited;
}

test('piped --follow: waits for a daemon, prints each new reading once, survives a restart, says so on stderr, exits 0 on SIGTERM', async () => {
  const siteDir = tempDir();
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const follow = new RunningCli(['current', '--follow', '--interval', '0.1', '--host', '127.0.0.1', '--port', String(port)]);
  let d: ChildDaemon | undefined;
  try {
    await follow.until('the no-daemon message', () => follow.err.includes('retrying'));
    d = await spawnDaemon({ siteDir, port });
    await follow.until('connected', () => follow.err.includes('connected to'));
    const posted: string[] = [];
    const post = async (type: string, data: unknown) => posted.push((await postEvent(d!.url, { type, data })).text);
    await post('weather', { temp_c: 4.5 });
    await post('dome', 'open');
    await follow.until('two lines', () => follow.lines().length >= 2);
    await post('weather', { temp_c: 4.1 });
    await follow.until('three lines', () => follow.lines().length >= 3);

    await stopDaemon(d);
    await follow.until('the loss', () => follow.err.includes('lost the daemon'));
    d = await spawnDaemon({ siteDir, port });
    await follow.until('the reconnection', () => follow.err.includes('reconnected'));
    // the restarted daemon has the same view: nothing is printed again
    await post('dome', 'closed');
    await follow.until('four lines', () => follow.lines().length >= 4);
    assert.equal(follow.lines(), posted, 'exactly the envelopes, in order, once each');
    assert.equal(posted.map((l) => JSON.parse(l).seq), [1, 2, 3, 4]);
    assert.is(follow.err, [
      `telemetry: no telemetry daemon at ${address}; retrying`,
      `telemetry: connected to ${address}`,
      `telemetry: lost the daemon at ${address}; retrying`,
      `telemetry: reconnected to ${address}`,
      '',
    ].join('\n'));

    follow.child.kill('SIGTERM');
    assert.is(await follow.exited, 0);
  } finally {
    follow.kill();
    if (d) await stopDaemon(d);
    removeDir(siteDir);
  }
});

test('piped --follow TYPE: only that type; make_current false is not a change; a run reading is, its end is not', () => withTestDaemon({}, async (d) => {
  const follow = new RunningCli(['current', 'weather', '--follow', '--interval', '0.1', '--host', '127.0.0.1', '--port', String(d.port)]);
  try {
    const site = (await postEvent(d.url, { type: 'weather', data: 1 })).text;
    await postEvent(d.url, { type: 'dome', data: 'open' });
    await follow.until('the first line', () => follow.lines().length >= 1);
    await postEvent(d.url, { type: 'weather', data: 2, make_current: false });
    await request(d.url, '/run/start', { method: 'POST', body: { run_id: '042' } });
    const inRun = (await postEvent(d.url, { type: 'weather', data: 3 })).text;
    await follow.until('the run reading', () => follow.lines().length >= 2);
    // the run's reading stays current after the stop (docs/storage.md, current view): no line for the stop
    await request(d.url, '/run/stop', { method: 'POST' });
    assert.is((await request(d.url, '/current/weather')).text, inRun);
    const last = (await postEvent(d.url, { type: 'weather', data: 4 })).text;
    await follow.until('the last reading', () => follow.lines().length >= 3);
    assert.equal(follow.lines(), [site, inRun, last]);
    assert.is(JSON.parse(inRun).meta.run_id, '042');
    assert.is(follow.err, '');
    follow.child.kill('SIGINT');
    assert.is(await follow.exited, 0);
  } finally {
    follow.kill();
  }
}));

test('piped --follow: the reader going away ends it quietly (exit 0); an error answer ends it with exit 1', () => withTestDaemon({ flags: { token: 'tok' } }, async (d) => {
  const at = ['--host', '127.0.0.1', '--port', String(d.port)];
  const auth = { authorization: 'Bearer tok' };
  const follow = new RunningCli(['current', '--follow', '--interval', '0.1', '--token', 'tok', ...at]);
  const refused = new RunningCli(['current', '--follow', ...at]);
  try {
    await postEvent(d.url, { type: 'weather', data: 1 }, auth);
    await follow.until('a line', () => follow.lines().length >= 1);
    follow.child.stdout!.destroy();
    await postEvent(d.url, { type: 'weather', data: 2 }, auth);
    assert.is(await follow.exited, 0);
    assert.is(follow.err, '');

    assert.is(await refused.exited, 1);
    assert.is(refused.err, 'telemetry: this daemon needs a token: send Authorization: Bearer <token> (UNAUTHORIZED)\n');
    assert.is(refused.out, '');
  } finally {
    follow.kill();
    refused.kill();
  }
}));

test('piped --follow against a daemon without /stream (an older one): polls /current instead', async () => {
  const readings = [
    { seq: 1, ts: '2026-03-18T00:00:01.000Z', type: 'weather', data: 1, meta: {} },
    { seq: 2, ts: '2026-03-18T00:00:02.000Z', type: 'weather', data: 2, meta: {} },
  ];
  let polls = 0;
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url!.split('?')[0]!);
    // like a daemon before /stream, it answers /current whatever the query (pollers ask ?freshness=false)
    if (req.url?.split('?')[0] === '/current') {
      const current = readings[Math.min(polls++, 1)]!;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ current: { weather: current } }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(`{"detail":"There is no ${req.url} here.","code":"NOT_FOUND"}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const follow = new RunningCli(['current', '--follow', '--interval', '0.1', '--host', '127.0.0.1', '--port', String((server.address() as AddressInfo).port)]);
  try {
    await follow.until('both readings', () => follow.lines().length >= 2);
    assert.equal(follow.lines(), readings.map((r) => JSON.stringify(r)));
    assert.equal([...new Set(paths)], ['/stream', '/current']);
    assert.is(follow.err, '');
    follow.child.kill('SIGTERM');
    assert.is(await follow.exited, 0);
  } finally {
    follow.kill();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('piped --follow polling a daemon without /stream prints each envelope as that daemon spelled it (a Python body: -10.0, escapes, its spaces)', async () => {
  const envelope = String.raw`{"seq": 7, "ts": "2026-03-18T00:00:01.000Z", "type": "weather", "data": {"t": -10.0, "s": "\u00e9"}, "meta": {}}`;
  const server = http.createServer((req, res) => {
    if (req.url?.split('?')[0] === '/current') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"current": {"weather": ${envelope}}}`);
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(`{"detail":"There is no ${req.url} here.","code":"NOT_FOUND"}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const follow = new RunningCli(['current', '--follow', '--interval', '0.1', '--host', '127.0.0.1', '--port', String((server.address() as AddressInfo).port)]);
  try {
    await follow.until('the reading', () => follow.lines().length >= 1);
    assert.equal(follow.lines(), [envelope]);
  } finally {
    follow.kill();
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
