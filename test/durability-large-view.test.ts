import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon } from './helpers/daemon.js';
import { FaultyFs } from './helpers/faulty-fs.js';
import { postEvent, request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A current view larger than one JavaScript string can hold is answered and snapshotted in
// chunks, never as one string. Building such a view is too heavy for a test run, so the
// chunk size is made small (200 characters: every reading its own chunk) and the answers
// and the snapshot are compared byte for byte with those of the usual one-chunk path.

const AT = '2026-06-01T22:00:00.000Z';
const CHUNK = 200;
// multi-byte characters at chunk edges: the chunks are encoded piece by piece
const TYPES = Array.from({ length: 20 }, (_, i) => `type-${String(19 - i).padStart(2, '0')}`);

async function fill(url: string): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  for (const [i, type] of TYPES.entries()) {
    const answer = await postEvent(url, { type, data: { text: `é✓😀 ${'x'.repeat(150 + i * 7)}`, n: 1.0 + i }, meta: { i } });
    assert.is(answer.status, 200);
    answers.set(type, answer.text);
  }
  return answers;
}

test('GET /current of a view in many chunks: the exact body, Content-Length, ETag and 304; a restart from its snapshot gives the same view', async () => {
  const clock = new ManualClock(AT);
  const siteDir = tempDir();
  const faulty = new FaultyFs();
  try {
    const d = await startTestDaemon({ clock, siteDir, viewChunkChars: CHUNK, fs: faulty.fs });
    const answers = await fill(d.url);
    // the opening with the first reading, one chunk per further reading, the closing
    assert.is(d.daemon.store.view.chunks().length, TYPES.length + 1);
    const plain = `{"current":{${[...answers.keys()].sort().map((t) => `${JSON.stringify(t)}:${answers.get(t)}`).join(',')}}}`;
    const got = await request(d.url, '/current?freshness=false');
    assert.is(got.text, plain);
    assert.is(got.headers['content-length'], String(Buffer.byteLength(plain)));
    const etag = got.headers.etag!;
    assert.is((await request(d.url, '/current?freshness=false', { headers: { 'if-none-match': etag } })).status, 304);
    const withFreshness = await request(d.url, '/current?freshness=true');
    assert.ok(withFreshness.text.startsWith(`${plain.slice(0, -1)},"freshness":{"type-00":{`), withFreshness.text.slice(0, 80));
    assert.equal(Object.keys(withFreshness.json.freshness), [...TYPES].sort());
    const freshTag = withFreshness.headers.etag!;
    assert.is((await request(d.url, '/current?freshness=true', { headers: { 'if-none-match': freshTag } })).status, 304);
    const some = await request(d.url, '/current?type=type-03,type-11&freshness=false');
    assert.is(some.text, `{"current":{"type-03":${answers.get('type-03')},"type-11":${answers.get('type-11')}}}`);
    const fresh = await request(d.url, '/current?stale=false');
    assert.is(fresh.text, withFreshness.text);
    // a new reading: another tag, a 200 again
    const changed = await postEvent(d.url, { type: 'type-05', data: 'new' });
    answers.set('type-05', changed.text);
    const after = await request(d.url, '/current?freshness=false', { headers: { 'if-none-match': etag } });
    assert.is(after.status, 200);
    assert.is.not(after.headers.etag, etag);
    const expected = `{"current":{${[...answers.keys()].sort().map((t) => `${JSON.stringify(t)}:${answers.get(t)}`).join(',')}}}`;
    assert.is(after.text, expected);
    const freshnessBefore = (await request(d.url, '/current?freshness=true')).text;

    const from = faulty.calls.length;
    await d.close();
    // the snapshot went out in pieces; it is JSON all the same
    const pieces = faulty.calls.slice(from).filter((c) => c.startsWith('write snapshot.json.tmp'));
    // the header (with each reading's receipt time, longer than a chunk here), a piece per line
    // but type-05's (now short: it joins the next), the closing
    assert.is(pieces.length, TYPES.length + 1);
    const snapshot = JSON.parse(fs.readFileSync(path.join(siteDir, '.meridian', 'snapshot.json'), 'utf8'));
    assert.equal([snapshot.format, snapshot.types, snapshot.current.length], [3, TYPES.length, TYPES.length]);

    // restarted with the usual chunk size: the same view, byte for byte, without replaying
    const again = await startTestDaemon({ clock, siteDir });
    try {
      assert.ok(again.logs.some((l) => l.includes(`recovered: site seq ${TYPES.length + 1} (0 line(s) replayed), ${TYPES.length} type(s) current`)), again.logs.join('\n'));
      assert.is(again.daemon.store.view.chunks().length, 1);
      assert.is((await request(again.url, '/current?freshness=false')).text, expected);
      assert.is((await request(again.url, '/current?freshness=true')).text, freshnessBefore);
    } finally {
      await again.close();
    }
  } finally {
    removeDir(siteDir);
  }
});

test('a slow reader of a chunked /current gets the exact body; one that goes away mid-body holds nothing', async () => {
  const siteDir = tempDir();
  const d = await startTestDaemon({ clock: new ManualClock(AT), siteDir, viewChunkChars: 64 * 1024 });
  try {
    // 40 readings of 100 KB: 4 MB, more than the socket buffers take at once
    for (let i = 0; i < 40; i++) assert.is((await postEvent(d.url, { type: `big-${String(i).padStart(2, '0')}`, data: 'z'.repeat(100_000) })).status, 200);
    const expected = (await request(d.url, '/current?freshness=false')).text;
    assert.is(expected.length > 4_000_000, true);
    const ask = () => {
      const socket = net.connect(d.port, '127.0.0.1');
      socket.write(`GET /current?freshness=false HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nConnection: close\r\n\r\n`);
      return socket;
    };
    // a reader that pauses after its first bytes: the daemon waits for it and serves others meanwhile
    const slow = ask();
    const received: Buffer[] = [];
    await new Promise<void>((resolve) => slow.once('data', (chunk: Buffer) => { received.push(chunk); slow.pause(); resolve(); }));
    assert.is((await request(d.url, '/current/big-07')).json.type, 'big-07');
    const ended = new Promise<void>((resolve) => slow.on('end', () => resolve()));
    slow.on('data', (chunk: Buffer) => received.push(chunk));
    slow.resume();
    await ended;
    const raw = Buffer.concat(received).toString('utf8');
    assert.is(raw.slice(raw.indexOf('\r\n\r\n') + 4), expected);
    // one that goes away after its first bytes
    const gone = ask();
    await new Promise<void>((resolve) => gone.once('data', () => resolve()));
    gone.destroy();
    assert.is((await request(d.url, '/current?type=big-00&freshness=false')).json.current['big-00'].type, 'big-00');
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test.run();
