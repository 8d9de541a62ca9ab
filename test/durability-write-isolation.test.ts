import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FsyncMode } from '../lib/config.js';
import { siteDayKey } from '../lib/day-key.js';
import type { StorageFs } from '../daemon/storage/storage-fs.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { readLines } from './helpers/tmp.js';

// A failed write changes nothing for any other event: the events of one event-loop turn
// share one write, and when it fails (the file would pass its size limit) they are written
// again one at a time, so only the event that does not fit is refused, and the seqs stay
// contiguous. The three events arrive pipelined on one connection, so they land in one turn.

const AT = '2026-06-01T22:00:00.000Z';
const NAME = `site_${siteDayKey(new Date(AT))}.ndjson`;

/** node:fs where the day file cannot grow past `limit.bytes` (a write past it writes what fits, then fails with EFBIG, as under RLIMIT_FSIZE). */
function limitedFs(limit: { bytes: number }, calls: string[]): StorageFs {
  const names = new Map<number, string>();
  return {
    ...fs,
    openSync: ((file: string, flags: string) => {
      const fd = fs.openSync(file, flags);
      names.set(fd, path.basename(file));
      return fd;
    }) as typeof fs.openSync,
    writeSync: ((fd: number, buf: Buffer, offset: number, length: number) => {
      if (names.get(fd) !== NAME) return fs.writeSync(fd, buf, offset, length);
      const room = limit.bytes - fs.fstatSync(fd).size;
      if (room <= 0) {
        calls.push(`EFBIG ${length}`);
        throw Object.assign(new Error('EFBIG: file too large'), { code: 'EFBIG' });
      }
      calls.push(`write ${Math.min(room, length)} of ${length}`);
      return fs.writeSync(fd, buf, offset, Math.min(room, length));
    }) as typeof fs.writeSync,
  };
}

/** Send `bodies` as POST /event requests pipelined in one TCP write; resolves the answers (status and JSON) in order. */
function pipelined(port: number, bodies: object[]): Promise<Array<{ status: number; json: any }>> {
  const requests = bodies.map((body) => {
    const text = JSON.stringify(body);
    return `POST /event HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
  });
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(requests.join('')));
    let raw = Buffer.alloc(0);
    const answers: Array<{ status: number; json: any }> = [];
    socket.on('data', (chunk: Buffer) => {
      raw = Buffer.concat([raw, chunk]);
      for (;;) {
        const head = raw.indexOf('\r\n\r\n');
        if (head === -1) break;
        const headers = raw.subarray(0, head).toString('latin1');
        const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
        if (raw.length < head + 4 + length) break;
        answers.push({ status: Number(headers.split(' ')[1]), json: JSON.parse(raw.subarray(head + 4, head + 4 + length).toString('utf8')) });
        raw = raw.subarray(head + 4 + length);
      }
      if (answers.length === bodies.length) {
        socket.end();
        resolve(answers);
      }
    });
    socket.on('error', reject);
  });
}

for (const mode of ['always', 'batch', 'off'] as FsyncMode[]) {
  test(`--fsync ${mode}: of one turn's events only the one that does not fit answers 503; the others keep consecutive seqs`, async () => {
    const calls: string[] = [];
    // room for the first event and two small ones, not for the big one
    const limit = { bytes: Number.MAX_SAFE_INTEGER };
    await withTestDaemon({ clock: new ManualClock(AT), fs: limitedFs(limit, calls), flags: { fsync: mode } }, async (d) => {
      const first = await postEvent(d.url, { type: 'small', data: 0 });
      assert.is(first.status, 200);
      const file = path.join(d.siteDir, NAME);
      limit.bytes = fs.statSync(file).size + 300;
      calls.length = 0;
      const answers = await pipelined(d.port, [
        { type: 'small', data: 1 }, { type: 'big', data: 'x'.repeat(4096) }, { type: 'small', data: 2 },
      ]);
      // one write of all three, cut back; then one at a time: small, big (cut back), small
      assert.equal(calls, ['write 300 of 4323', 'EFBIG 4023', 'write 76 of 76', 'write 224 of 4171', 'EFBIG 3947', 'write 76 of 76']);
      assert.equal(answers.map((a) => [a.status, a.json.seq ?? a.json.code]), [[200, 2], [503, 'STORAGE_UNAVAILABLE'], [200, 3]]);
      assert.is(answers[1]!.json.detail, `Could not write to ${file} (EFBIG); the event was not recorded.`);
      assert.equal(answers.map((a) => a.json.data), [1, undefined, 2]);
      assert.equal(readLines(file), [first.json, answers[0]!.json, answers[2]!.json]);
      const current = (await request(d.url, '/current?freshness=false')).json;
      assert.equal(current, { current: { small: answers[2]!.json } });
      assert.is((await request(d.url, '/current/big')).status, 404);
      limit.bytes = Number.MAX_SAFE_INTEGER;
      const next = await postEvent(d.url, { type: 'big', data: 'y' });
      assert.equal([next.status, next.json.seq], [200, 4]);
      assert.ok(d.logs.some((l) => l.includes(`write of 3 line(s) to ${file} failed (EFBIG); written one at a time: 2 written, 1 not recorded (503) (said once until a write succeeds)`)));
    });
  });
}

test('a failed write that cannot be cut back: that turn answers 503, the partial line is cut when the file is reopened', async () => {
  const calls: string[] = [];
  const limit = { bytes: Number.MAX_SAFE_INTEGER };
  const cut = { fails: false };
  const base = limitedFs(limit, calls);
  const io: StorageFs = {
    ...base,
    ftruncateSync: ((fd: number, len?: number) => {
      if (cut.fails) throw Object.assign(new Error('EIO: injected, ftruncate'), { code: 'EIO' });
      fs.ftruncateSync(fd, len);
    }) as typeof fs.ftruncateSync,
  };
  await withTestDaemon({ clock: new ManualClock(AT), fs: io }, async (d) => {
    const first = await postEvent(d.url, { type: 'small', data: 0 });
    const file = path.join(d.siteDir, NAME);
    limit.bytes = fs.statSync(file).size + 100;
    cut.fails = true;
    const answers = await pipelined(d.port, [{ type: 'small', data: 1 }, { type: 'big', data: 'x'.repeat(4096) }, { type: 'small', data: 2 }]);
    assert.equal(answers.map((a) => [a.status, a.json.code]), [[503, 'STORAGE_UNAVAILABLE'], [503, 'STORAGE_UNAVAILABLE'], [503, 'STORAGE_UNAVAILABLE']]);
    assert.is(answers[2]!.json.detail, `Could not write to ${file} (EFBIG); the event was not recorded.`);
    // 100 bytes of a partial line stay until the file is reopened
    assert.is(fs.statSync(file).size, Buffer.byteLength(`${first.text}\n`) + 100);
    limit.bytes = Number.MAX_SAFE_INTEGER;
    cut.fails = false;
    const next = await postEvent(d.url, { type: 'small', data: 3 });
    assert.equal([next.status, next.json.seq], [200, 2]);
    assert.is(fs.readFileSync(file, 'utf8'), `${first.text}\n${next.text}\n`);
    assert.equal((await request(d.url, '/current?freshness=false')).json, { current: { small: next.json } });
  });
});

/** node:fs whose fdatasync fails with EIO while `failing.sync` is set. */
function failingSyncFs(failing: { sync: boolean }): StorageFs {
  return {
    ...fs,
    fdatasync: ((fd: number, cb: (error: NodeJS.ErrnoException | null) => void) => {
      if (failing.sync) cb(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      else fs.fdatasync(fd, cb);
    }) as typeof fs.fdatasync,
  };
}

test('--fsync always: a sync that fails after the write answers 500 NOT_SYNCED (recorded: not to be sent again)', async () => {
  const failing = { sync: false };
  const syncFs = failingSyncFs(failing);
  await withTestDaemon({ clock: new ManualClock(AT), fs: syncFs, flags: { fsync: 'always' } }, async (d) => {
    failing.sync = true;
    const answer = await postEvent(d.url, { type: 'dome', data: 'open' });
    const file = path.join(d.siteDir, NAME);
    assert.equal(answer.json, {
      detail: `The event was recorded as seq 1 in ${file}, but the sync to disk failed (EIO); do not send it again: it would be recorded twice.`,
      code: 'NOT_SYNCED',
    });
    assert.is(answer.status, 500);
    const line = readLines(file);
    assert.equal(line.map((l) => (l as { seq: number }).seq), [1]);
    assert.equal((await request(d.url, '/current/dome')).json, line[0]);
    failing.sync = false;
    assert.equal((await postEvent(d.url, { type: 'dome', data: 'closed' })).json.seq, 2);
  });
});

test('--fsync always: a batch whose sync fails answers 500 NOT_SYNCED naming its seqs (all written, none to be sent again)', async () => {
  const failing = { sync: false };
  await withTestDaemon({ clock: new ManualClock(AT), fs: failingSyncFs(failing), flags: { fsync: 'always' } }, async (d) => {
    assert.equal((await postEvent(d.url, { type: 'dome', data: 'open' })).json.seq, 1);
    failing.sync = true;
    const body = [{ type: 'mount', data: 1 }, { type: 'dome', data: 'closed', store_permanently: false }, { type: 'mount', data: 2 }];
    const answer = await request(d.url, '/events', { body });
    const file = path.join(d.siteDir, NAME);
    assert.equal([answer.status, answer.json], [500, {
      detail: `The 3 event(s) were recorded as seqs 2..4 in ${file}, but the sync to disk failed (EIO); do not send them again: they would be recorded twice.`,
      code: 'NOT_SYNCED',
    }]);
    // the ephemeral one has its seq and no line
    assert.equal(readLines(file).map((l) => (l as { seq: number; data: unknown }).data), ['open', 1, 2]);
    assert.equal((await request(d.url, '/current/dome')).json.seq, 3);
    failing.sync = false;
    assert.equal((await request(d.url, '/events', { body: [{ type: 'mount', data: 3 }] })).json,
      { recorded: 1, first_seq: 5, last_seq: 5, run_id: null });
  });
});

test.run();
