import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { readLines, removeDir } from './helpers/tmp.js';
import { prng } from './helpers/prng.js';

// Thousands of random and malformed requests, then: the daemon still serves, every line on
// disk is a whole envelope, seqs are contiguous, and exactly the acknowledged events are there.

const REQUESTS = 2500;
const WORKERS = 8;
const DEADLINE_MS = 60_000;

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const rand = prng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'BREW'];
const PATHS = ['/event', '/current', '/current/weather', '/current/%ZZ', '/current/%2e%2e%2f', '/health', '/ready', '/run',
  '/nope', '/event/', '//event', '/event?x=1', `/current/${'x'.repeat(5000)}`, '/current/d%C3%B4me', '/%00', '/../etc/passwd'];
const TYPES = ['application/json', 'text/plain', 'application/json; charset=utf-8', '', 'application/x-www-form-urlencoded',
  'application/vnd.api+json', 'multipart/form-data; boundary=x'];
const GOOD = ['{"type":"weather","data":{"t":1}}', '{"type":"dome","data":null,"make_current":false}',
  '{"type":"ünïcödé ☃","data":[1,2,3],"meta":{"k":"v"}}'];

function mutate(text: string): string {
  const chars = [...text];
  const edits = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rand() * (chars.length + 1));
    const op = rand();
    if (op < 0.33) chars.splice(at, 1);
    else if (op < 0.66) chars.splice(at, 0, pick(['{', '}', '"', ',', ':', '\\', '\u0000', 'null', '[', '1e999', '\uD800']));
    else chars.length = at;
  }
  return chars.join('');
}

function randomBody(): string {
  const r = rand();
  if (r < 0.3) return mutate(pick(GOOD));
  if (r < 0.45) return JSON.stringify(pick([[], 'x', 7, null, true, { type: 1, data: 1 }, { type: '', data: 1 },
    { type: 'a'.repeat(300), data: 1 }, { type: 'x\ny', data: 1 }, { type: 'x' }, { type: 'x', data: 1, meta: [] },
    { type: 'x', data: 1, make_current: 'yes' }]));
  if (r < 0.55) return Buffer.from(Array.from({ length: Math.floor(rand() * 200) }, () => Math.floor(rand() * 256))).toString('latin1');
  if (r < 0.6) return `{"type":"big","data":"${'z'.repeat(1024 * 1024 + 10)}"}`;
  return '';
}

function httpRequest(port: number, method: string, urlPath: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(-1));
    });
    req.setTimeout(10_000, () => req.destroy());
    req.on('error', () => resolve(-1));
    req.end(body);
  });
}

function rawGarbage(port: number): Promise<void> {
  const payloads = [
    'GET / HTTP/1.1\r\n\r\n', 'POST /event HTTP/1.1\r\nContent-Length: 50\r\nContent-Type: application/json\r\n\r\n{"type"',
    'POST /event HTTP/1.1\r\nContent-Length: -5\r\n\r\n', 'GARBAGE\r\n\r\n', '\u0000\u0001\u0002',
    'POST /event HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nZZ\r\n',
    `GET /current HTTP/1.1\r\nX-Big: ${'h'.repeat(20000)}\r\n\r\n`,
  ];
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(pick(payloads)));
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('data', () => {});
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

test(`${REQUESTS} random and malformed requests leave the daemon serving and its files intact (seed ${SEED})`, async () => {
  const d = await spawnDaemon({ args: ['--max-body', '1048576'] });
  const acked: string[] = [];
  const started = Date.now();
  let sent = 0;
  try {
    const worker = async () => {
      while (sent < REQUESTS && Date.now() - started < DEADLINE_MS) {
        sent++;
        const r = rand();
        if (r < 0.08) {
          await rawGarbage(d.port);
          continue;
        }
        const headers: Record<string, string> = {};
        const type = pick(TYPES);
        if (type) headers['content-type'] = type;
        if (rand() < 0.05) headers.origin = 'http://evil.example';
        if (rand() < 0.05) headers.host = pick(['evil.example', '', 'localhost:1', '[::1]', 'a'.repeat(300)]);
        if (rand() < 0.05) headers.authorization = pick(['Bearer x', 'Basic y', '']);
        const good = r < 0.3;
        const body = good ? pick(GOOD) : randomBody();
        const method = good ? 'POST' : pick(METHODS);
        const urlPath = good ? '/event' : pick(PATHS);
        if (good) headers['content-type'] = 'application/json';
        const status = await httpRequest(d.port, method, urlPath, headers, method === 'GET' || method === 'HEAD' ? '' : body);
        if (method === 'POST' && urlPath === '/event' && status === 200) acked.push(body);
        if (status >= 500) assert.unreachable(`${method} ${urlPath} answered ${status} (body ${JSON.stringify(body.slice(0, 80))})`);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, () => worker()));
    assert.ok(sent >= REQUESTS, `sent ${sent} requests before the deadline`);

    assert.equal((await request(d.url, '/health')).json, { ok: true });
    const files = fs.readdirSync(d.siteDir).filter((n) => n.startsWith('site_'));
    const lines = files.sort().flatMap((f) => readLines(path.join(d.siteDir, f)) as Array<{ seq: number; type: string }>);
    assert.is(lines.length, acked.length, 'exactly the acknowledged events are on disk');
    assert.equal(lines.map((l) => l.seq), lines.map((_, i) => i + 1));
    for (const f of files) assert.ok(fs.readFileSync(path.join(d.siteDir, f), 'utf8').endsWith('\n'));
    assert.is(d.child.exitCode, null, 'the daemon is still running');
  } finally {
    d.child.kill('SIGTERM');
    assert.is(await d.exited, 0);
    removeDir(d.siteDir);
  }
});

test.run();
