import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { retryDelay } from '../daemon/forward/backoff.js';
import { deliveredAll } from '../daemon/forward/cursor.js';
import { ndjsonBody } from '../daemon/forward/http.js';
import { IngestShare, type LoopSampler } from '../daemon/forward/ingest-share.js';
import { topicOfType } from '../daemon/forward/mqtt.js';
import { lagEvents } from '../daemon/forward/lag.js';
import { LogTail } from '../daemon/forward/log-tail.js';
import type { ForwardRecord } from '../daemon/forward/record.js';
import { initialMark, runsAfter } from '../daemon/forward/runs.js';
import { redactUrl } from '../daemon/forward/secrets.js';
import { lineHead } from '../daemon/ndjson/head.js';
import type { StoreHead } from '../daemon/storage/store.js';
import type { Segment } from '../daemon/storage/timeline.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// The pure parts of forwarding: retry delays, the ingest share, record heads, topics, bodies.

test('retryDelay: capped exponential with full jitter between the bounds', () => {
  const bounds = { minMs: 250, maxMs: 30_000 };
  const rows: Array<[number, number, number]> = [
    [1, 0, 250], [1, 0.999, 250], [2, 0, 250], [2, 0.5, 375], [2, 1, 500], [3, 1, 1000], [8, 1, 30_000], [8, 0.5, 15_125], [60, 1, 30_000],
  ];
  for (const [attempt, random, delay] of rows) assert.is(retryDelay(attempt, bounds, () => random), delay, `attempt ${attempt}, random ${random}`);
});

test('IngestShare: a pause of 19x the step (at most 5 s) under heavy ingest (100 events/s or more, or any on a busy loop); none for a trickle on a loop with time to spare, or no ingest', () => {
  // the loop's readings since the previous call, as perf_hooks answers them: [elapsed ms, utilization]
  const loads: Array<[number, number]> = [[1000, 0.9], [1000, 0.5], [1000, 0.95], [1000, 0.99], [1000, 0.99], [1000, 0.99], [1000, 0.3], [100, 0.3], [1000, 0.3]];
  let i = 0;
  const sampler: LoopSampler = (since) => {
    if (!since) return { idle: 0, active: 0, utilization: 0 };
    const [ms, utilization] = loads[i++]!;
    return { idle: ms * (1 - utilization), active: ms * utilization, utilization };
  };
  const share = new IngestShare(sampler);
  const rows: Array<[string, number, number, number]> = [
    ['first look', 0, 20, 0],
    ['50 events/s on a busy loop', 50, 20, 380],
    ['50 events/s with spare loop time', 100, 20, 0],
    ['a busy loop but no ingest (the sinks alone)', 100, 20, 0],
    ['ingest on a busy loop, a slow batch (PostgreSQL inserting)', 150, 200, 3800],
    ['ingest on a busy loop, a batch of more than 5 s / 19', 200, 500, 5000],
    ['ingest, a quick batch', 201, 0, 19],
    ['99 events/s with spare loop time (a trickle)', 300, 20, 0],
    ['100 events/s with spare loop time (requests waiting on the disk)', 310, 20, 380],
    ['1000 events/s with spare loop time', 1310, 30, 570],
  ];
  for (const [name, recorded, batchMs, pause] of rows) assert.is(share.pauseAfter(recorded, batchMs), pause, name);
});

test('lineHead (the head the forwarders read): seq, ts and type from the line head, else from the whole line, else nothing', () => {
  const rows: Array<[string, string, ReturnType<typeof lineHead>]> = [
    ['as Meridian writes it', '{"seq":41,"ts":"2026-03-18T00:05:48.955Z","type":"dome \\"a\\"","data":1,"meta":{}}', { seq: 41, ts: '2026-03-18T00:05:48.955Z', type: 'dome "a"' }],
    ['the original service (stream key first)', '{"stream":"x","type":"w","seq":3,"ts":"2026-03-18T00:05:48.955Z","data":1}', { seq: 3, ts: '2026-03-18T00:05:48.955Z', type: 'w' }],
    ['not JSON', '{"seq":1,"ts', undefined],
    ['no seq', '{"ts":"x","type":"w"}', undefined],
  ];
  for (const [name, line, head] of rows) assert.equal(lineHead(line), head, name);
});

test('topicOfType: MQTT wildcards, % and a first level `current` are escaped, the rest kept', () => {
  const rows: Array<[string, string]> = [['weather', 'weather'], ['dome status', 'dome status'], ['a+b#c%d', 'a%2Bb%23c%25d'], ['mount/axis', 'mount/axis'],
    ['current', '%63urrent'], ['current/weather', '%63urrent/weather'], ['current/', '%63urrent/'], ['currently', 'currently'], ['Current/weather', 'Current/weather'],
    ['current+x', 'current%2Bx'], ['%63urrent', '%2563urrent'], ['dome/current', 'dome/current'], ['/current', '/current']];
  for (const [type, topic] of rows) assert.is(topicOfType(type), topic, type);
});

test('ndjsonBody: one record per line with id, unit, stream, seq and the envelope byte for byte; the current view flagged', () => {
  const line = '{"seq":7,"ts":"2026-03-18T00:05:48.955Z","type":"w","data":1.0,"meta":{}}';
  const wide = '{"seq":9,"ts":"2026-03-18T00:05:48.955Z","type":"w","data":"\u00e9t\u00e9 \u2603 \ud83c\udf19","meta":{}}';
  const record: ForwardRecord = { stream: '042', seq: 7, ts: '', type: 'w', line, file: 'f', end: 0 };
  const rows: Array<[string, ForwardRecord[], string, 'current'?]> = [
    ['two records of a run', [record, { ...record, seq: 8 }],
      `{"id":"042:7","unit":"pan012","stream":"042","seq":7,"envelope":${line}}\n{"id":"042:8","unit":"pan012","stream":"042","seq":8,"envelope":${line}}\n`],
    ['streams mixed, an ephemeral one, characters of 2 to 4 bytes', [{ ...record, stream: 'site', seq: 9, line: wide }, { ...record, ephemeral: true }],
      `{"id":"site:9","unit":"pan012","stream":"site","seq":9,"envelope":${wide}}\n{"id":"042:7","unit":"pan012","stream":"042","seq":7,"ephemeral":true,"envelope":${line}}\n`],
    ['only characters of 3 bytes (the buffer grows)', [{ ...record, line: '\u2603'.repeat(200) }],
      `{"id":"042:7","unit":"pan012","stream":"042","seq":7,"envelope":${'\u2603'.repeat(200)}}\n`],
    ['no records', [], ''],
    ['the current view: every record flagged current (an ephemeral one too)', [{ ...record, stream: 'site', seq: 9, line: wide }, { ...record, ephemeral: true }],
      `{"id":"site:9","unit":"pan012","stream":"site","seq":9,"current":true,"envelope":${wide}}\n{"id":"042:7","unit":"pan012","stream":"042","seq":7,"current":true,"envelope":${line}}\n`, 'current'],
  ];
  for (const [name, records, text, flag] of rows) {
    assert.is(ndjsonBody(records, 'pan012', flag).toString('hex'), Buffer.from(text, 'utf8').toString('hex'), name);
  }
  // a unit id of 64 characters and a long run id: the buffer grows for the record's head
  const long = { ...record, stream: 'r'.repeat(128) };
  assert.is(ndjsonBody([long], 'u'.repeat(64)).toString(), `{"id":"${long.stream}:7","unit":"${'u'.repeat(64)}","stream":"${long.stream}","seq":7,"envelope":${line}}\n`);
});

test('redactUrl: a password never shows', () => {
  assert.is(redactUrl('postgres://unit1:s3cret@db.site/obs'), 'postgres://unit1:***@db.site/obs');
  assert.is(redactUrl('mqtt://broker:1883'), 'mqtt://broker:1883');
  assert.is(redactUrl('not a url'), 'not a url');
  assert.is(redactUrl('nohost://u:s3cret@'), 'nohost://***@');
});

test('deliveredAll: what retention may touch, by a sink\'s cursor', () => {
  const day = (d: string) => `/s/site_${d}.ndjson`;
  const run = '/s/042/telemetry.ndjson';
  const at = (file: string, offset: number) => ({ file, offset, seq: 1 });
  const rows: Array<[string, Array<[string, ReturnType<typeof at>]>, string, number, boolean]> = [
    ['site stream on a later day', [['site', at(day('20260318'), 0)]], day('20260317'), 500, true],
    ['site stream inside the day', [['site', at(day('20260317'), 200)]], day('20260317'), 500, false],
    ['site stream at the end of the day', [['site', at(day('20260317'), 500)]], day('20260317'), 500, true],
    ['site stream on an earlier day', [['site', at(day('20260316'), 900)]], day('20260317'), 500, false],
    ['run stream inside the run file', [['site', at(day('20260318'), 0)], ['042', at(run, 10)]], run, 50, false],
    ['run stream at its end', [['site', at(day('20260318'), 0)], ['042', at(run, 50)]], run, 50, true],
    ['a run no stream names', [['site', at(day('20260318'), 0)]], run, 50, true],
  ];
  for (const [name, positions, file, size, expected] of rows) assert.is(deliveredAll(positions, file, size), expected, name);
  assert.is(deliveredAll([['site', at(day('20260317'), 500)]], day('20260317'), Infinity), false, 'compressed, the cursor still in it');
  assert.is(deliveredAll([['site', at(`${day('20260318')}`, 0)]], day('20260317'), Infinity), true, 'compressed, the cursor on a later day');
});

// site (0, 5], run 042 (0, 7], site (5, 9], run 043 (2, 4], site (9, open)
const SEGMENTS: Segment[] = [
  { stream: 'site', file: undefined, after: 0, to: 5 }, { stream: '042', file: '/s/042/telemetry.ndjson', after: 0, to: 7 },
  { stream: 'site', file: undefined, after: 5, to: 9 }, { stream: '043', file: '/s/043/telemetry.ndjson', after: 2, to: 4 },
  { stream: 'site', file: undefined, after: 9, to: Infinity },
];

test('runsAfter and initialMark: the runs of the timeline a sink takes in, each from where its segment began', () => {
  const none = () => undefined;
  const following = (id: string, file: string) => (s: string) => (s === id ? { file, offset: 10, seq: 3 } : undefined);
  const run42 = '/s/042/telemetry.ndjson';
  const again = (file: string): Segment[] => [...SEGMENTS, { stream: '042', file, after: 7, to: Infinity }];
  const rows: Array<[string, Segment[], number, (s: string) => { file: string; offset: number; seq: number } | undefined, string[], number]> = [
    ['all runs from the start', SEGMENTS, 0, none, ['042@0', '043@2'], 5],
    ['from the mark on', SEGMENTS, 2, none, ['043@2'], 5],
    ['a run the cursor follows is left as it is', SEGMENTS, 0, following('042', run42), ['043@2'], 5],
    ['past the end', SEGMENTS, 5, none, [], 5],
    ['a run in two segments of one file, taken once from the first', again(run42), 0, none, ['042@0', '043@2'], 6],
    ['a run id used again in another file waits for the first (this sweep)', again('/s/b/telemetry.ndjson'), 0, none, ['042@0', '043@2'], 5],
    ['a run id used again in another file waits for the first (followed)', again('/s/b/telemetry.ndjson'), 2, following('042', run42), ['043@2'], 5],
    ['taken in once the first is forwarded', again('/s/b/telemetry.ndjson'), 5, none, ['042@7'], 6],
  ];
  for (const [name, segments, from, at, expected, covered] of rows) {
    const taken = runsAfter(segments, from, at);
    assert.equal([taken.found.map((r) => `${r.stream}@${r.position.seq}`), taken.covered], [expected, covered], name);
  }
  assert.is(initialMark(SEGMENTS), 5, 'no active run: no run before now');
  assert.is(initialMark(SEGMENTS, true), 0, 'a new sink from the beginning: every run');
  const removed: Segment[] = SEGMENTS.map((s) => (s.stream === '042' ? { ...s, removed: true } : s));
  assert.equal(runsAfter(removed, 0, none).found.map((r) => r.stream), ['043'], 'a run file retention deleted is passed over');
  assert.is(initialMark([...SEGMENTS.slice(0, 4), { stream: '044', file: '/s/044/telemetry.ndjson', after: 0, to: Infinity }]), 4, 'the active run is taken in');
});

test('lagEvents: seqs between the position and the store\'s end; none at the very end of the newest file; a stopped run by its last segment', () => {
  const head: StoreHead = { segments: SEGMENTS, site: { file: '/s/site_20260318.ndjson', bytes: 900, seq: 12 }, run: undefined };
  const rows: Array<[string, Array<[string, { file: string; offset: number; seq: number }]>, number]> = [
    ['caught up', [['site', { file: '/s/site_20260318.ndjson', offset: 900, seq: 11 }]], 0],
    ['behind in the newest file', [['site', { file: '/s/site_20260318.ndjson', offset: 300, seq: 8 }]], 4],
    ['on an earlier day', [['site', { file: '/s/site_20260317.ndjson', offset: 900, seq: 5 }]], 7],
    ['a stopped run', [['site', { file: '/s/site_20260318.ndjson', offset: 900, seq: 11 }], ['043', { file: '/s/043/telemetry.ndjson', offset: 0, seq: 2 }]], 2],
  ];
  for (const [name, positions, lag] of rows) assert.is(lagEvents(positions, head), lag, name);
  const active: StoreHead = { ...head, run: { id: '043', file: '/s/043/telemetry.ndjson', bytes: 400, seq: 6 } };
  assert.is(lagEvents([['043', { file: '/s/043/telemetry.ndjson', offset: 100, seq: 3 }]], active), 3, 'the active run by its end');
  const behind: Array<[string, { file: string; offset: number; seq: number }]> = [['site', { file: '/s/site_20260318.ndjson', offset: 300, seq: 8 }]];
  assert.is(lagEvents(behind, head, new Map([['site', 10]])), 2, 'ephemeral seqs after the newest line are no lag');
});

test('LogTail: a day that is over and ends without a newline is named when the tail moves on; the newest file\'s is left for later', async () => {
  const dir = tempDir();
  try {
    const line = (seq: number) => JSON.stringify({ seq, ts: '2026-03-16T10:00:00.000Z', type: 'a', data: seq, meta: {} });
    const [day1, day2] = [path.join(dir, 'site_20260316.ndjson'), path.join(dir, 'site_20260317.ndjson')];
    fs.writeFileSync(day1, `${line(5)}\n${line(6)}\n{"seq":7,"ts":"2026-03-16T1`);
    fs.writeFileSync(day2, `${line(8)}\n{"seq":9,"ts`);
    const tail = new LogTail(dir);
    const limits = { records: 50, bytes: 1 << 20 };
    const first = await tail.read('site', { file: day1, offset: 0, seq: 4 }, limits, day2);
    assert.equal([first.records.map((r) => r.seq), first.position, first.atEnd, first.gaps], [[5, 6], { file: day1, offset: 144, seq: 6 }, true, []]);
    const second = await tail.read('site', first.position, limits, day2);
    assert.equal([second.records.map((r) => r.seq), second.position, second.gaps],
      [[8], { file: day2, offset: 72, seq: 8 }, [`${day1} ends in 27 byte(s) that are no whole line (after site:6): passed over`]]);
    const third = await tail.read('site', second.position, limits, day2);
    assert.equal([third.records, third.position, third.atEnd, third.gaps], [[], second.position, true, []], 'the newest file: a line being written');
  } finally {
    removeDir(dir);
  }
});

test.run();
