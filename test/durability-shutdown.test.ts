import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from './helpers/cli.js';
import { spawnDaemon, type ChildDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { readLines, removeDir } from './helpers/tmp.js';

// A stop under load is bounded: clients posting on keep-alive connections as fast as they
// can (sensors at 10-100 Hz) must not keep the daemon alive, and every event answered 200 is
// in the file exactly once.

const CLIENTS = 24;
// the stop is triggered once this many events were answered, so every connection is busy
const ANSWERED_BEFORE_STOP = 300;
// the daemon is given this long (--shutdown-timeout 2 plus room for a loaded machine) to exit
const EXIT_WITHIN_MS = 15_000;
// no client posts more than this (the loops are bounded even when the daemon never stops)
const MAX_POSTS = 50_000;

type Env = { seq: number; type: string; data: { client: number; i: number } };

interface Shared {
  answered: number;
  giveUp: boolean;
  onAnswered: () => void;
}

/** One keep-alive POST /event through `agent`; resolves the status and body, rejects on a connection error. */
function post(agent: http.Agent, port: number, body: object): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, path: '/event', method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A sensor: posts on one keep-alive connection until an answer is not 200 or the connection fails. */
async function sensor(port: number, client: number, shared: Shared): Promise<{ ok: string[]; ended: string }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ok: string[] = [];
  let ended = 'gave up';
  try {
    for (let i = 0; i < MAX_POSTS && !shared.giveUp; i++) {
      let answer;
      try {
        answer = await post(agent, port, { type: `sensor ${client}`, data: { client, i } });
      } catch (error) {
        ended = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        break;
      }
      if (answer.status !== 200) {
        ended = `${answer.status} ${answer.text}`;
        break;
      }
      ok.push(answer.text);
      shared.answered++;
      shared.onAnswered();
    }
  } finally {
    agent.destroy();
  }
  return { ok, ended };
}

const STOPS: Array<[string, (d: ChildDaemon) => Promise<unknown>]> = [
  ['SIGTERM', async (d) => d.child.kill('SIGTERM')],
  ['SIGINT', async (d) => d.child.kill('SIGINT')],
  ['POST /shutdown', (d) => request(d.url, '/shutdown', { method: 'POST' })],
  ['telemetry stop', async (d) => {
    const stop = await cli(['stop', '--host', '127.0.0.1', '--port', String(d.port)]);
    assert.is(stop.stdout, `telemetry daemon at 127.0.0.1:${d.port} stopped (pid ${d.child.pid})\n`);
    assert.is(stop.code, 0);
  }],
];

for (const [name, stop] of STOPS) {
  test(`${name} under keep-alive load: the daemon exits within its shutdown timeout, every 200 is on disk once`, async () => {
    const d = await spawnDaemon({ args: ['--shutdown-timeout', '2'] });
    let watchdog: NodeJS.Timeout | undefined;
    try {
      let stopAt = 0;
      let stopping: Promise<unknown> | undefined;
      let triggered!: () => void;
      const started = new Promise<void>((resolve) => { triggered = resolve; });
      const shared: Shared = {
        answered: 0,
        giveUp: false,
        onAnswered: () => {
          if (stopping || shared.answered < ANSWERED_BEFORE_STOP) return;
          stopAt = Date.now();
          stopping = stop(d);
          triggered();
        },
      };
      const sensors = Array.from({ length: CLIENTS }, (_, client) => sensor(d.port, client, shared));
      await started;
      const exited = await Promise.race([
        d.exited.then((code) => ({ code, afterMs: Date.now() - stopAt })),
        new Promise<undefined>((resolve) => { watchdog = setTimeout(() => resolve(undefined), EXIT_WITHIN_MS); }),
      ]);
      shared.giveUp = true;
      const results = await Promise.all(sensors);
      await stopping;
      assert.ok(exited, `the daemon was still running ${EXIT_WITHIN_MS} ms after ${name}, with ${shared.answered} events answered`);
      assert.is(exited!.code, 0, d.stderr());
      assert.ok(exited!.afterMs < EXIT_WITHIN_MS);

      for (const r of results) {
        assert.ok(['ECONNREFUSED', 'ECONNRESET'].includes(r.ended), `a sensor ended with ${r.ended}`);
      }
      const file = fs.readdirSync(d.siteDir).filter((n) => n.endsWith('.ndjson')).map((n) => path.join(d.siteDir, n));
      assert.is(file.length, 1);
      const lines = readLines(file[0]!) as Env[];
      assert.equal(lines.map((l) => l.seq), lines.map((_, i) => i + 1), 'seqs 1..N, none twice');
      const onDisk = new Set(fs.readFileSync(file[0]!, 'utf8').split('\n'));
      const acked = results.flatMap((r) => r.ok);
      assert.ok(acked.length >= ANSWERED_BEFORE_STOP);
      for (const text of acked) assert.ok(onDisk.has(text), `answered 200 but not on disk: ${text}`);
      const readings = new Set(lines.map((l) => `${l.data.client}:${l.data.i}`));
      assert.is(readings.size, lines.length, 'no reading recorded twice');
      const snapshot = JSON.parse(fs.readFileSync(path.join(d.siteDir, '.meridian', 'snapshot.json'), 'utf8'));
      assert.is(snapshot.site.seq, lines.length, 'the final snapshot covers every line');
      assert.match(d.stderr(), /INFO stopped\n$/);
    } finally {
      clearTimeout(watchdog);
      if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
      await d.exited;
      removeDir(d.siteDir);
    }
  });
}

test('a request whose body never comes does not hold the stop past --shutdown-timeout, and records nothing', async () => {
  const d = await spawnDaemon({ args: ['--shutdown-timeout', '1'] });
  let watchdog: NodeJS.Timeout | undefined;
  const socket = net.connect(d.port, '127.0.0.1');
  try {
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let received = '';
    const firstAnswered = new Promise<void>((resolve) => socket.on('data', (c: Buffer) => {
      received += c.toString();
      if (received.includes('"seq":1')) resolve();
    }));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    const whole = '{"type":"whole","data":1}';
    // one whole request, then one whose body stops halfway: once the first is answered the
    // daemon has read the second's headers, so it is in flight
    socket.write(`POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${whole.length}\r\n\r\n${whole}` +
      'POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"type":"half",');
    await firstAnswered;
    const stopAt = Date.now();
    d.child.kill('SIGTERM');
    const exited = await Promise.race([
      d.exited.then((code) => ({ code, afterMs: Date.now() - stopAt })),
      new Promise<undefined>((resolve) => { watchdog = setTimeout(() => resolve(undefined), EXIT_WITHIN_MS); }),
    ]);
    assert.ok(exited, `the daemon was still running ${EXIT_WITHIN_MS} ms after SIGTERM`);
    assert.is(exited!.code, 0);
    await closed;
    const file = fs.readdirSync(d.siteDir).filter((n) => n.endsWith('.ndjson')).map((n) => path.join(d.siteDir, n));
    assert.equal((readLines(file[0]!) as Env[]).map((l) => [l.seq, l.type]), [[1, 'whole']]);
    assert.match(d.stderr(), /WARN closing 1 connection\(s\) with a request still in flight\n/);
  } finally {
    clearTimeout(watchdog);
    socket.destroy();
    if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('an answer written after the stop began says Connection: close, and its connection ends with it', async () => {
  const d = await spawnDaemon({ args: ['--shutdown-timeout', '30'] });
  const socket = net.connect(d.port, '127.0.0.1');
  try {
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let received = '';
    const answers = (n: number) => new Promise<void>((resolve) => {
      const check = () => { if (received.split('HTTP/1.1 ').length > n) resolve(); };
      socket.on('data', check);
      check();
    });
    socket.on('data', (c: Buffer) => { received += c.toString(); });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const first = '{"type":"before","data":1}';
    const second = '{"type":"after","data":2}';
    // the first request is answered before the stop; the second's headers and half its body are in
    socket.write(`POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${first.length}\r\n\r\n${first}` +
      `POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${second.length}\r\n\r\n${second.slice(0, 10)}`);
    await answers(1);
    assert.match(received, /\r\nConnection: keep-alive\r\n/);
    d.child.kill('SIGTERM');
    await new Promise<void>((resolve) => {
      const check = () => { if (d.stderr().includes('SIGTERM received; stopping')) resolve(); };
      d.child.stderr!.on('data', check);
      check();
    });
    socket.write(second.slice(10));
    await answers(2);
    await closed;
    const heads = received.split('HTTP/1.1 ').slice(1).map((answer) => answer.slice(0, answer.indexOf('\r\n\r\n')));
    assert.equal(heads.map((head) => [head.slice(0, 3), /\r\nConnection: (\S+)/.exec(head)?.[1]]), [['200', 'keep-alive'], ['200', 'close']]);
    assert.is(await d.exited, 0);
    const file = fs.readdirSync(d.siteDir).filter((n) => n.endsWith('.ndjson')).map((n) => path.join(d.siteDir, n));
    assert.equal((readLines(file[0]!) as Env[]).map((l) => [l.seq, l.type]), [[1, 'before'], [2, 'after']]);
  } finally {
    socket.destroy();
    if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test.run();
