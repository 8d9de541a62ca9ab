import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestDaemon, withTestDaemon } from './helpers/daemon.js';
import { postEvent, request } from './helpers/http.js';
import { SseReader } from './helpers/sse.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// GET /stream against the real daemon: the current view, the live marker, live events; resume
// after a client disconnect and after a daemon restart with no gap and no duplicate; a slow
// client dropped without slowing anyone; shutdown ending streams.

const post = async (url: string, type: string, data: unknown, extra: object = {}) => {
  const answer = await postEvent(url, { type, data, ...extra });
  assert.is(answer.status, 200, answer.text);
  return answer.text;
};
const idsOf = (s: SseReader, ...names: string[]) => s.named(...names).map((f) => f.id);

test('a fresh stream: one snapshot event per current type, the live marker, then every event as recorded', () => withTestDaemon({}, async (d) => {
  const weather = await post(d.url, 'weather', { t: 1 });
  const dome = await post(d.url, 'dome', 'open');
  await post(d.url, 'weather', { t: 2 }, { make_current: false });
  const s = new SseReader(d.url, '/stream');
  try {
    await s.live();
    assert.is(s.status, 200);
    assert.is(s.headers['content-type'], 'text/event-stream');
    assert.equal(s.frames.map((f) => [f.event, f.id, f.data]), [
      ['snapshot', undefined, dome], ['snapshot', undefined, weather], ['live', 'site:3', '{"cursor":"site:3","snapshot":2}'],
    ]);
    const current = await post(d.url, 'weather', { t: 3 });
    const held = await post(d.url, 'camera', 'x', { make_current: false });
    await s.until('two live events', () => s.named('event', 'held').length === 2);
    assert.equal(s.frames.slice(3).map((f) => [f.event, f.id, f.data]), [['event', 'site:4', current], ['held', 'site:5', held]]);
  } finally {
    s.close();
  }
}));

test('a stream of some types: only their snapshot and events', () => withTestDaemon({}, async (d) => {
  await post(d.url, 'weather', 1);
  const dome = await post(d.url, 'dome', 'open');
  const s = new SseReader(d.url, '/stream?type=dome,mount');
  try {
    await s.live();
    await post(d.url, 'weather', 2);
    const mount = await post(d.url, 'mount', 'slewing');
    await s.until('the mount event', () => s.named('event').length === 1);
    assert.equal(s.frames.map((f) => [f.event, f.data]), [['snapshot', dome], ['live', '{"cursor":"site:2","snapshot":1}'], ['event', mount]]);
  } finally {
    s.close();
  }
}));

test('resume after a disconnect: the events posted meanwhile (a run started and stopped) replayed once, in order, then live', () => withTestDaemon({}, async (d) => {
  const s1 = new SseReader(d.url, '/stream');
  await s1.live();
  await post(d.url, 'weather', 'a');
  await s1.until('the first event', () => s1.named('event').length === 1);
  s1.close();
  const missed = [await post(d.url, 'weather', 'b')];
  await request(d.url, '/run/start', { body: { run_id: 'r1' } });
  missed.push(await post(d.url, 'camera', 'c'));
  await request(d.url, '/run/stop', { method: 'POST' });
  missed.push(await post(d.url, 'weather', 'd'));
  for (const headers of [{ 'last-event-id': s1.lastId()! }, { 'last-event-id': 'site:1' }]) {
    // the header wins over a stale since= in the URL (what a reconnecting EventSource sends)
    const s2 = new SseReader(d.url, '/stream?since=site:0', headers);
    try {
      await s2.live();
      assert.equal(s2.frames.map((f) => [f.event, f.id, f.data]), [
        ['replay', 'site:2', missed[0]], ['replay', 'run:r1:1', missed[1]], ['replay', 'site:3', missed[2]],
        ['live', 'site:3', '{"cursor":"site:3","replayed":3}'],
      ]);
    } finally {
      s2.close();
    }
  }
  const s3 = new SseReader(d.url, '/stream?since=run:r1:1&type=weather');
  try {
    await s3.live();
    const e = await post(d.url, 'weather', 'e');
    await s3.until('a live event', () => s3.named('event').length === 1);
    assert.equal(s3.frames.map((f) => [f.event, f.id, f.data]), [
      ['replay', 'site:3', missed[2]], ['live', 'site:3', '{"cursor":"site:3","replayed":1}'], ['event', 'site:4', e],
    ]);
  } finally {
    s3.close();
  }
}));

test('resume after a daemon restart: what was posted to the new daemon is replayed from the files', async () => {
  const siteDir = tempDir();
  try {
    let d = await startTestDaemon({ siteDir });
    const s1 = new SseReader(d.url, '/stream');
    let last: string;
    const after: string[] = [];
    try {
      await s1.live();
      await post(d.url, 'weather', 1);
      await s1.until('the event', () => s1.named('event').length === 1);
      after.push(await post(d.url, 'weather', 2));
      await request(d.url, '/run/start', { body: { run_id: 'r1' } });
    } finally {
      await d.close();
    }
    await s1.until('the end of the stream', () => s1.ended);
    last = s1.lastId()!;
    assert.is(last, 'site:2');
    after.shift(); // site:2 was seen live before the restart
    d = await startTestDaemon({ siteDir });
    try {
      after.push(await post(d.url, 'dome', 'open'));
      const s2 = new SseReader(d.url, `/stream?since=${last}`);
      try {
        await s2.live();
        assert.equal(s2.frames.map((f) => [f.event, f.id, f.data]), [
          ['replay', 'run:r1:1', after[0]], ['live', 'run:r1:1', '{"cursor":"run:r1:1","replayed":1}'],
        ]);
      } finally {
        s2.close();
      }
    } finally {
      await d.close();
    }
  } finally {
    removeDir(siteDir);
  }
});

test('resume while events are being posted: the two connections together hold every seq exactly once', () => withTestDaemon({}, async (d) => {
  const total = 400;
  const s1 = new SseReader(d.url, '/stream');
  await s1.live();
  const start = Number(JSON.parse(s1.named('live')[0]!.data).cursor.split(':')[1]);
  const posting = (async () => {
    for (let i = 0; i < total; i++) await postEvent(d.url, { type: `t${i % 3}`, data: i });
  })();
  await s1.until('some events', () => s1.named('event').length >= 50);
  s1.close();
  const seen1 = idsOf(s1, 'event');
  const s2 = new SseReader(d.url, '/stream', { 'last-event-id': seen1.at(-1)! });
  try {
    await posting;
    await s2.until('the last event', () => s2.lastId() === `site:${start + total}`);
    const seen = [...seen1, ...idsOf(s2, 'replay', 'event')].map((id) => Number(id!.split(':')[1]));
    assert.equal(seen, Array.from({ length: total }, (_, i) => start + i + 1));
  } finally {
    s2.close();
  }
}));

test('a client that stops reading is told and dropped; ingest and a reading client go on', () => withTestDaemon({}, async (d) => {
  const fast = new SseReader(d.url, '/stream');
  const slow = new SseReader(d.url, '/stream');
  try {
    await fast.live();
    await slow.live();
    slow.pause();
    // the loopback socket buffers take tens of MB (tcp_rmem) before the daemon's own queue fills
    const big = 'x'.repeat(512 * 1024);
    let posted = 0;
    while (!d.logs.some((l) => / dropped: /.test(l)) && posted < 240) {
      await post(d.url, 'image', big);
      posted++;
    }
    assert.ok(d.logs.some((l) => /WARN stream client 127\.0\.0\.1:\d+ dropped: \d+ bytes of events were waiting \(limit 4194304\)/.test(l)), d.logs.join('\n'));
    await fast.until('every event', () => fast.named('event').length === posted);
    assert.is(fast.lastId(), `site:${posted}`);
    // reading again, the slow client finds the notice after what had reached it, then the end
    slow.resume();
    await slow.until('the end of the stream', () => slow.ended);
    const last = slow.frames.at(-1)!;
    assert.equal([last.event, last.id, JSON.parse(last.data).code], ['dropped', undefined, 'STREAM_OVERFLOW']);
    const got = slow.named('event').length;
    assert.ok(got > 0 && got < posted, `${got} of ${posted}`);
    assert.equal(idsOf(slow, 'event'), Array.from({ length: got }, (_, i) => `site:${i + 1}`));
  } finally {
    fast.close();
    slow.close();
  }
}));

test('shutdown ends open streams at once', async () => {
  const d = await startTestDaemon();
  const s = new SseReader(d.url, '/stream');
  try {
    await s.live();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([d.close(), new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('close hung on an open stream')), 10_000); })]);
    clearTimeout(timer);
    await s.until('the end of the stream', () => s.ended);
  } finally {
    s.close();
    removeDir(d.siteDir);
  }
});

// [name, path, headers, code, detail]
const REFUSED: [string, string, Record<string, string>, string, string][] = [
  ['a malformed since', '/stream?since=42', {}, 'INVALID_CURSOR', 'since "42" is not a cursor: it must be site:<seq> or run:<run id>:<seq>, such as site:1042 or run:014:17.'],
  ['a Last-Event-ID of an unknown run', '/stream', { 'last-event-id': 'run:zz:1' }, 'INVALID_CURSOR', 'Last-Event-ID run:zz:1 names no recorded event of this site directory (no run zz in its timeline).'],
  ['a cursor beyond the end', '/stream?since=site:5', {}, 'INVALID_CURSOR', 'since site:5 is beyond the last seq recorded in the site (1).'],
  ['an unknown parameter', '/stream?from=-1h', {}, 'INVALID_QUERY', 'unknown query parameter "from"; this path takes type, since, alarms.'],
];

test('a bad cursor or parameter is answered 422 as JSON before any stream', () => withTestDaemon({}, async (d) => {
  await post(d.url, 'weather', 1);
  for (const [name, path, headers, code, detail] of REFUSED) {
    const answer = await request(d.url, path, { headers });
    assert.equal([answer.status, answer.headers['content-type'], answer.json], [422, 'application/json', { detail, code }], name);
  }
}));

test.run();
