import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, TelemetryClientError, type StreamMessage } from '../client/index.js';
import { spawnDaemon, withTestDaemon } from './helpers/daemon.js';
import { rejection } from './helpers/rejection.js';
import { removeDir } from './helpers/tmp.js';

// client.history() and client.stream() against the real daemon: pages, filters, errors;
// snapshot then live; resume across a daemon restart with no gap and no duplicate.

test('history() iterates pages in record order and stops when the daemon has no more', () => withTestDaemon({}, async (d) => {
  const client = new TelemetryClient({ baseUrl: d.url });
  try {
    for (const v of [1, 2]) await client.postEvent('weather', v);
    await client.startRun({ runId: 'r1' });
    await client.postEvent('weather', 3);
    await client.postEvent('dome', 'open');
    await client.stopRun();
    await client.postEvent('weather', 4);
    const pages = [];
    for await (const page of client.history({ types: ['weather'], limit: 2 })) pages.push(page);
    assert.equal(pages.map((p) => [p.events.map((e) => e.data), p.nextCursor]), [[[1, 2], 'site:2'], [[3, 4], 'site:3'], [[], null]]);
    const runOnly = [];
    for await (const page of client.history({ run: 'r1', from: new Date(0), to: '-0s' })) runOnly.push(...page.events.map((e) => e.data));
    assert.equal(runOnly, [3, 'open']);
    const after = [];
    for await (const page of client.history({ cursor: 'run:r1:2' })) after.push(...page.events.map((e) => e.data));
    assert.equal(after, [4]);
    const error = await rejection(client.history({ run: 'r9' }).next());
    assert.instance(error, TelemetryClientError);
    assert.equal([(error as TelemetryClientError).statusCode, (error as TelemetryClientError).code], [422, 'INVALID_QUERY']);
  } finally {
    client.close();
  }
}));

test('stream() gives the current view, the live marker, then events as recorded; break ends it', () => withTestDaemon({}, async (d) => {
  const client = new TelemetryClient({ baseUrl: d.url });
  try {
    await client.postEvent('weather', 1);
    const seen: StreamMessage[] = [];
    for await (const message of client.stream({ types: ['weather', 'dome'] })) {
      seen.push(message);
      if (message.kind === 'live') {
        await client.postEvent('dome', 'open', { makeCurrent: false });
        await client.postEvent('mount', 'parked');
        await client.postEvent('weather', 2);
      }
      if (message.kind === 'event' && message.envelope.data === 2) break;
    }
    assert.equal(seen.map((m) => m.kind === 'live' ? ['live', m.cursor] : m.kind === 'snapshot' ? ['snapshot', m.envelope.data]
      : m.kind === 'event' ? ['event', m.envelope.data, m.cursor, m.current] : [m.kind]),
    [['snapshot', 1], ['live', 'site:1'], ['event', 'open', 'site:2', false], ['event', 2, 'site:4', true]]);
  } finally {
    client.close();
  }
}));

test('stream() resumes after a daemon restart: every event once, in order, a disconnected message between', async () => {
  let d = await spawnDaemon();
  const client = new TelemetryClient({ baseUrl: d.url });
  const controller = new AbortController();
  try {
    const events: unknown[] = [];
    const kinds: string[] = [];
    for await (const message of client.stream({ signal: controller.signal, retryMs: 50 })) {
      kinds.push(message.kind);
      if (message.kind === 'event') events.push(message.envelope.data);
      if (message.kind === 'live' && kinds.length === 1) await client.postEvent('weather', 'a');
      if (message.kind === 'event' && message.envelope.data === 'a') {
        await client.postEvent('weather', 'b');
        d.child.kill('SIGTERM');
        assert.is(await d.exited, 0);
        d = await spawnDaemon({ siteDir: d.siteDir, port: d.port });
        await client.postEvent('weather', 'c');
      }
      if (message.kind === 'live' && kinds.length > 2) await client.postEvent('weather', 'd');
      if (message.kind === 'event' && message.envelope.data === 'd') break;
    }
    assert.equal(events, ['a', 'b', 'c', 'd']);
    assert.ok(kinds.includes('disconnected'), kinds.join(' '));
  } finally {
    controller.abort();
    client.close();
    d.child.kill('SIGTERM');
    await d.exited;
    removeDir(d.siteDir);
  }
});

test('stream() against a daemon without /stream rejects with its 404', async () => {
  const server = http.createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"detail":"There is no /stream here.","code":"NOT_FOUND"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new TelemetryClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  try {
    const error = await rejection(client.stream().next());
    assert.instance(error, TelemetryClientError);
    assert.equal([(error as TelemetryClientError).statusCode, (error as TelemetryClientError).code, (error as TelemetryClientError).detail],
      [404, 'NOT_FOUND', 'There is no /stream here.']);
  } finally {
    client.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
