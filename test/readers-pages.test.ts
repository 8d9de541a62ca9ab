import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';
import { removeDir } from './helpers/tmp.js';

// Pages are bounded in bytes as well as count (issue 23), in /history and the stream replay,
// and a resumed stream that stops reading is bounded and dropped like a live one.

const MIB = 1024 * 1024;

/** Post `count` events whose data is a string of `chars` characters; returns nothing. */
async function postBig(url: string, count: number, chars: number, type = 'img'): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await postEvent(url, { type, data: String(i).padStart(chars, 'x') });
    assert.is(res.status, 200, res.text);
  }
}

/** Resolve once a log line matches, failing at the deadline. */
async function logged(d: TestDaemon, pattern: RegExp, deadlineMs = 15_000): Promise<string> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const line = d.logs.find((l) => pattern.test(l));
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no log line ${pattern}:\n${d.logs.join('\n')}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('GET /history pages end at 16 MiB of events: 20 events of ~1 MB come as 17 + 3, next_cursor between', async () => {
  const d = await startTestDaemon({ flags: { maxBody: 2 * MIB } });
  try {
    await postBig(d.url, 20, 1_000_000);
    const first = await request(d.url, '/history?limit=100');
    assert.is(first.status, 200);
    assert.equal([first.json.events.map((e: any) => e.seq), first.json.next_cursor], [[...Array(17).keys()].map((i) => i + 1), 'site:17']);
    const second = await request(d.url, '/history?limit=100&cursor=site:17');
    assert.equal([second.json.events.map((e: any) => e.seq), second.json.next_cursor], [[18, 19, 20], null]);
    // a single event larger than the bound still comes, alone
    const one = await request(d.url, '/history?limit=1&cursor=site:19');
    assert.equal([one.json.events.length, one.json.next_cursor], [1, 'site:20']);
    // the stream's replay reads the same events a page at a time, all of them, once
    const stream = new SseReader(d.url, '/stream?since=site:0');
    try {
      await stream.until('the live marker', () => stream.named('live').length === 1, 60_000);
      assert.equal(stream.named('replay').map((f) => f.id), [...Array(20).keys()].map((i) => `site:${i + 1}`));
      assert.equal(stream.data('live'), [{ cursor: 'site:20', replayed: 20 }]);
    } finally {
      stream.close();
    }
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
});

test('a resumed stream that reads nothing is dropped once 4 MiB of its events are recorded, and holds no stop', async () => {
  const d = await startTestDaemon();
  let socket: net.Socket | undefined;
  try {
    await postBig(d.url, 300, 100_000);
    // a client that asks for a replay of ~30 MB and never reads a byte of it
    socket = net.connect(d.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket!.once('connect', resolve));
    socket.pause();
    socket.write(`GET /stream?since=site:0 HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nAccept: text/event-stream\r\n\r\n`);
    await postBig(d.url, 60, 100_000);
    const line = await logged(d, /stream client 127\.0\.0\.1:\d+ dropped/);
    const [, total, behind, unsent] = /dropped: it read none of its replay while (\d+) bytes waited for it \((\d+) of events recorded meanwhile, (\d+) of its replay not yet taken; limit 4194304\)$/.exec(line) ?? [];
    assert.ok(total !== undefined && Number(total) === Number(behind) + Number(unsent) && Number(total) > 4194304, line);
    const t0 = Date.now();
    await d.close();
    assert.ok(Date.now() - t0 < 3000, `the stop took ${Date.now() - t0} ms`);
  } finally {
    socket?.destroy();
    await d.close();
    removeDir(d.siteDir);
  }
});

test('a resumed stream that reads nothing holds no stop, whatever --shutdown-timeout', async () => {
  const d = await startTestDaemon({ flags: { shutdownTimeout: '60' } });
  let socket: net.Socket | undefined;
  try {
    await postBig(d.url, 300, 100_000);
    socket = net.connect(d.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket!.once('connect', resolve));
    socket.pause();
    socket.write(`GET /stream?since=site:0 HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nAccept: text/event-stream\r\n\r\n`);
    // the replay is under way once the daemon's answer starts filling the socket
    await new Promise<void>((resolve) => socket!.once('readable', resolve));
    const t0 = Date.now();
    await d.close();
    assert.ok(Date.now() - t0 < 1500, `the stop took ${Date.now() - t0} ms`);
  } finally {
    socket?.destroy();
    await d.close();
    removeDir(d.siteDir);
  }
});

test.run();
