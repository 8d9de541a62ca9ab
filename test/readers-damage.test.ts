import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeMember } from '../daemon/ndjson/gzip-members.js';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { ManualClock } from './helpers/clock.js';
import { answerChecker } from './helpers/openapi.js';
import { cli } from './helpers/cli.js';
import { startTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Every reader against every state a compressed day can be in (issue 23): a damaged
// `site_<day>.ndjson.gz` never stops start-up and never breaks /history or a /stream resume;
// the file is named in the log, /status and the answer, and the rest is served.

const NOW = '2026-03-17T20:00:00.000Z';
const line = (seq: number) => JSON.stringify({ seq, ts: '2026-03-01T00:00:00.000Z', type: 'a', data: seq, meta: {} });
const lines = (from: number, to: number) => Buffer.from(Array.from({ length: to - from + 1 }, (_, i) => `${line(from + i)}\n`).join(''));

/** Two members: seqs 1-2, then 3. */
const members = () => [encodeMember(lines(1, 2)), encodeMember(lines(3, 3))];
const corrupt = (buf: Buffer, at: number) => {
  const copy = Buffer.from(buf);
  for (let i = at; i < at + 8; i++) copy[i] = 0xff;
  return copy;
};

/** `member` with 8 bytes from `at` of its header flipped (its `Md` field: 12-13 the id, 16-19 its length, 20-23 its plain length). */
const flip = (member: Buffer, at: number, count = 4) => {
  const copy = Buffer.from(member);
  for (let i = at; i < at + count; i++) copy[i]! ^= 0x5a;
  return copy;
};
/** A gzip member as the gzip tool writes it: the file's name in its header (FNAME). */
const named = (plain: Buffer) => {
  const gz = zlib.gzipSync(plain);
  const header = Buffer.from(gz.subarray(0, 10));
  header[3] = 0x08;
  return Buffer.concat([header, Buffer.from('site_20260301.ndjson\0', 'latin1'), gz.subarray(10)]);
};
/** Three members: seqs 1-2, 3, then nothing more (the middle one is the one damaged). */
const three = (middle: (b: Buffer) => Buffer) => Buffer.concat([encodeMember(lines(1, 1)), middle(encodeMember(lines(2, 2))), encodeMember(lines(3, 3))]);
const cutLine = (plain: Buffer) => plain.subarray(0, plain.length - 10);

// [name, the bytes of site_20260301.ndjson.gz (seqs 1..3), seqs served, what is said of it]
const ROWS: [string, () => Buffer, number[], string][] = [
  ['whole, in members', () => Buffer.concat(members()), [1, 2, 3, 4, 5], ''],
  ['a member that does not decompress', () => { const [a, b] = members(); return Buffer.concat([a!, corrupt(b!, 26)]); }, [1, 2, 4, 5],
    'its member at byte 107 does not decompress (invalid distance too far back)'],
  ['truncated in its last member', () => { const [a, b] = members(); return Buffer.concat([a!, b!.subarray(0, 30)]); }, [1, 2, 4, 5],
    'its member at byte 107 is cut short (truncated)'],
  ['zero bytes', () => Buffer.alloc(0), [4, 5], 'it is empty (0 bytes), not a gzip file'],
  ['one member of an earlier version', () => zlib.gzipSync(lines(1, 3)), [1, 2, 3, 4, 5], ''],
  ['one member, truncated', () => zlib.gzipSync(lines(1, 3)).subarray(0, 80), [1, 4, 5],
    'its member at byte 0 is cut short (truncated)'],
  ['one member, overwritten in its middle', () => corrupt(zlib.gzipSync(lines(1, 3)), 20), [4, 5],
    'bytes 0-100 of it hold no gzip member that decompresses'],
  // issue 23: a damaged Md field; zcat reads all of these
  ['a middle member whose Md length is wrong', () => three((b) => flip(b, 16)), [1, 2, 3, 4, 5], ''],
  ['a middle member whose Md plain length is wrong', () => three((b) => flip(b, 20)), [1, 2, 3, 4, 5], ''],
  ['a middle member whose Md id is overwritten', () => three((b) => flip(b, 12, 2)), [1, 2, 3, 4, 5], ''],
  // its extra field's length overwritten: zcat fails there too; the next member is found by its magic
  ['a middle member whose extra field length is wrong', () => three((b) => flip(b, 10, 2)), [1, 3, 4, 5],
    'bytes 97-194 of it hold no gzip member that decompresses'],
  ['bytes between two members', () => { const [a, b] = members(); return Buffer.concat([a!, Buffer.from('junk'), b!]); }, [1, 2, 3, 4, 5],
    'bytes 107-111 of it hold no gzip member that decompresses'],
  // made by hand, no Md fields: read as one stream, members in order
  ['several members without the field (gzip -c a >> f.gz)', () => Buffer.concat([zlib.gzipSync(lines(1, 1)), zlib.gzipSync(lines(2, 3))]), [1, 2, 3, 4, 5], ''],
  ['members made by hand cut inside a line (split -b, then gzip each)', () => Buffer.concat([zlib.gzipSync(lines(1, 3).subarray(0, 100)), named(lines(1, 3).subarray(100))]),
    [1, 2, 3, 4, 5], ''],
  ['one member as the gzip tool writes it (a name in its header)', () => named(lines(1, 3)), [1, 2, 3, 4, 5], ''],
  ['indexed members, then one appended by hand', () => Buffer.concat([encodeMember(lines(1, 2)), named(lines(3, 3))]), [1, 2, 3, 4, 5], ''],
  // a torn last line, cut before compression: named, as for every member ending inside a line
  ['its last line cut before compression (one member)', () => zlib.gzipSync(cutLine(lines(1, 3))), [1, 2, 4, 5],
    'its member at byte 0 ends inside a line (its last 62 bytes form no whole line)'],
  ['its last line cut before compression (indexed)', () => encodeMember(cutLine(lines(1, 3))), [1, 2, 4, 5],
    'its member at byte 0 ends inside a line (its last 62 bytes form no whole line)'],
  ['not gzip at all', () => lines(1, 3), [4, 5], 'bytes 0-216 of it hold no gzip member that decompresses'],
];

for (const [name, bytes, served, reason] of ROWS) {
  test(`a compressed day ${name}: start-up, /history, /stream resume and /status`, async () => {
    const siteDir = tempDir();
    const gz = path.join(siteDir, 'site_20260301.ndjson.gz');
    fs.writeFileSync(gz, bytes());
    fs.writeFileSync(path.join(siteDir, 'site_20260302.ndjson'), lines(4, 5));
    // no snapshot: start-up replays every file, the damaged one included
    const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
    const damaged = reason === '' ? [] : [{ file: gz, reason }];
    try {
      const history = await request(d.url, '/history');
      assert.is(history.status, 200);
      // the answers that name damage are those the OpenAPI document describes
      const check = answerChecker((await request(d.url, '/openapi.json')).json as OpenAPIObject);
      check('GET', '/history', history);
      check('GET', '/status', await request(d.url, '/status'));
      assert.equal(history.json, { events: served.map((seq) => JSON.parse(line(seq))), next_cursor: null, ...(reason ? { damaged } : {}) });
      const stream = new SseReader(d.url, '/stream?since=site:0');
      try {
        await stream.until('the live marker', () => stream.named('live').length === 1);
        assert.equal(stream.named('replay').map((f) => f.id), served.map((seq) => `site:${seq}`));
        assert.equal(stream.data('live'), [{ cursor: 'site:5', replayed: served.length, ...(reason ? { damaged } : {}) }]);
      } finally {
        stream.close();
      }
      assert.equal((await request(d.url, '/status')).json.damaged, reason ? damaged : undefined);
      const said = d.logs.filter((l) => l.includes(`${gz} is damaged`));
      assert.is(said.length > 0, reason !== '', `the log names the damaged file: ${JSON.stringify(d.logs)}`);
      // the seq goes on after the highest readable one, and nothing was written to the damaged file
      assert.is((await request(d.url, '/event', { body: { type: 'b', data: 1 } })).json.seq, 6);
      assert.equal(fs.readFileSync(gz), bytes());
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

// [which bytes of the 20th member's header are flipped (its Md field), what is said of the file]
const PAGED: [string, number, number][] = [
  ['length', 16, 4],
  ['plain length', 20, 4],
  ['id', 12, 2],
];

for (const [name, at, count] of PAGED) {
  test(`every page over a day of 60 members, one in the middle with a wrong Md ${name}: each event once, nothing named damaged`, async () => {
    const siteDir = tempDir();
    const gz = path.join(siteDir, 'site_20260301.ndjson.gz');
    // 60 members of 50 lines each (seqs 1..3000); the 20th (seqs 951..1000) has its field flipped
    const parts = Array.from({ length: 60 }, (_, i) => encodeMember(lines(i * 50 + 1, i * 50 + 50)));
    parts[19] = flip(parts[19]!, at, count);
    fs.writeFileSync(gz, Buffer.concat(parts));
    fs.writeFileSync(path.join(siteDir, 'site_20260302.ndjson'), lines(3001, 3002));
    const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
    try {
      const seqs: number[] = [];
      for (let cursor = 'site:0'; ;) {
        const page = (await request(d.url, `/history?limit=37&cursor=${cursor}`)).json;
        assert.is(page.damaged, undefined);
        seqs.push(...page.events.map((e: any) => e.seq));
        if (page.next_cursor === null) break;
        cursor = page.next_cursor;
      }
      assert.equal(seqs, Array.from({ length: 3002 }, (_, i) => i + 1));
      const stream = new SseReader(d.url, '/stream?since=site:940');
      try {
        await stream.until('the live marker', () => stream.named('live').length === 1);
        assert.equal(stream.named('replay').map((f) => f.id), Array.from({ length: 2062 }, (_, i) => `site:${i + 941}`));
        assert.equal(stream.data('live'), [{ cursor: 'site:3002', replayed: 2062 }]);
      } finally {
        stream.close();
      }
      assert.equal((await request(d.url, '/status')).json.damaged, undefined);
      assert.is((await request(d.url, '/event', { body: { type: 'b', data: 1 } })).json.seq, 3003);
    } finally {
      await d.close();
      removeDir(siteDir);
    }
  });
}

test('the CLI names a damaged day: history prints what it still holds, says so and exits 1; status lists it', async () => {
  const siteDir = tempDir();
  const gz = path.join(siteDir, 'site_20260301.ndjson.gz');
  const [a, b] = members();
  fs.writeFileSync(gz, Buffer.concat([a!, corrupt(b!, 26)]));
  fs.writeFileSync(path.join(siteDir, 'site_20260302.ndjson'), lines(4, 5));
  const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
  const reason = 'its member at byte 107 does not decompress (invalid distance too far back)';
  try {
    const at = ['--host', '127.0.0.1', '--port', String(d.port)];
    const history = await cli(['history', 'a', '--json', ...at]);
    assert.equal(history, { code: 1, stdout: [1, 2, 4, 5].map((seq) => `${line(seq)}\n`).join(''),
      stderr: `telemetry: damaged: ${gz}: ${reason}; the events it still holds were shown, the rest of it could not be read\n` });
    const status = await cli(['status', ...at]);
    assert.equal([status.code, status.stderr, status.stdout.split('\n').slice(1)], [0, '', [
      'rollups ok  last rebuild 2026-03-17T20:00:00.000Z (no rollup checkpoint: built from the recorded files)', `damaged: ${gz}: ${reason}`, '']]);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('the clock back in the day of a damaged compressed file: events answered 503 naming it, nothing written, no seq taken', async () => {
  const siteDir = tempDir();
  const gz = path.join(siteDir, 'site_20260301.ndjson.gz');
  fs.writeFileSync(gz, Buffer.alloc(0));
  fs.writeFileSync(path.join(siteDir, 'site_20260302.ndjson'), lines(4, 5));
  const clock = new ManualClock('2026-03-01T20:00:00.000Z');
  const d = await startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' } });
  try {
    const refused = await request(d.url, '/event', { body: { type: 'b', data: 1 } });
    assert.equal([refused.status, refused.json], [503, { detail: 'the day file site_20260301.ndjson.gz is damaged (Z_BUF_ERROR) and cannot be appended to; nothing was recorded', code: 'STORAGE_UNAVAILABLE' }]);
    assert.equal(fs.readFileSync(gz), Buffer.alloc(0));
    assert.is(fs.existsSync(path.join(siteDir, 'site_20260301.ndjson')), false);
    clock.set(NOW);
    assert.is((await request(d.url, '/event', { body: { type: 'b', data: 2 } })).json.seq, 6);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('a compressed day replaced while the daemon runs (restored from a backup) is read as it is now', async () => {
  const siteDir = tempDir();
  const gz = path.join(siteDir, 'site_20260301.ndjson.gz');
  // 2,000 lines (several index blocks), then the same seqs with data of another length
  const day = (data: (seq: number) => string) => encodeMember(Buffer.from(Array.from({ length: 2000 }, (_, i) =>
    `${JSON.stringify({ seq: i + 1, ts: '2026-03-01T00:00:00.000Z', type: 'a', data: data(i + 1), meta: {} })}\n`).join('')));
  fs.writeFileSync(gz, day((seq) => `first ${seq}`.padEnd(100, '.')));
  fs.writeFileSync(path.join(siteDir, 'site_20260302.ndjson'), lines(2001, 2002));
  const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
  try {
    assert.equal((await request(d.url, '/history?limit=1&cursor=site:1500')).json.events.map((e: any) => e.data), ['first 1501'.padEnd(100, '.')]);
    fs.writeFileSync(`${gz}.new`, day((seq) => `restored ${seq}`));
    fs.renameSync(`${gz}.new`, gz);
    const after = (await request(d.url, '/history?cursor=site:1500')).json;
    assert.equal([after.events.length, after.events[0].data, after.events[499].data, after.damaged], [502, 'restored 1501', 'restored 2000', undefined]);
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test('a plain past day with a torn last line: start-up cuts it, /history serves the whole lines', async () => {
  const siteDir = tempDir();
  const day = path.join(siteDir, 'site_20260301.ndjson');
  fs.writeFileSync(day, Buffer.concat([lines(1, 2), Buffer.from(line(3).slice(0, 20))]));
  const d = await startTestDaemon({ siteDir, clock: new ManualClock(NOW) });
  try {
    assert.equal((await request(d.url, '/history')).json, { events: [JSON.parse(line(1)), JSON.parse(line(2))], next_cursor: null });
    assert.equal(fs.readFileSync(day), lines(1, 2));
  } finally {
    await d.close();
    removeDir(siteDir);
  }
});

test.run();
