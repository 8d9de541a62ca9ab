import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { retryDelay } from '../daemon/forward/backoff.js';
import { deliveredAll } from '../daemon/forward/cursor.js';
import { ndjsonBody } from '../daemon/forward/http.js';
import { IngestShare, type LoopSampler } from '../daemon/forward/ingest-share.js';
import { topicOfType } from '../daemon/forward/mqtt.js';
import { envelopeHead, type ForwardRecord } from '../daemon/forward/record.js';
import { redactUrl } from '../daemon/forward/sink.js';

// The pure parts of forwarding: retry delays, the ingest share, record heads, topics, bodies.

test('retryDelay: capped exponential with full jitter between the bounds', () => {
  const bounds = { minMs: 250, maxMs: 30_000 };
  const rows: Array<[number, number, number]> = [
    [1, 0, 250], [1, 0.999, 250], [2, 0, 250], [2, 0.5, 375], [2, 1, 500], [3, 1, 1000], [8, 1, 30_000], [8, 0.5, 15_125], [60, 1, 30_000],
  ];
  for (const [attempt, random, delay] of rows) assert.is(retryDelay(attempt, bounds, () => random), delay, `attempt ${attempt}, random ${random}`);
});

test('IngestShare: no pause with spare loop time or no ingest; 19x the step time (at most 1 s) when both are busy', () => {
  // utilization readings since the previous call, as perf_hooks answers them
  const loads = [0.9, 0.5, 0.95, 0.99, 0.99];
  let i = 0;
  const sampler: LoopSampler = (since) => ({ idle: 0, active: 0, utilization: since ? loads[i++]! : 0 });
  const share = new IngestShare(sampler);
  const rows: Array<[string, number, number, number]> = [
    ['first look', 0, 20, 0],
    ['ingest on a busy loop', 100, 20, 380],
    ['ingest with spare loop time', 200, 20, 0],
    ['a busy loop but no ingest (the sinks alone)', 200, 20, 0],
    ['ingest on a busy loop, a slow batch', 300, 500, 1000],
    ['ingest, a quick batch', 301, 0, 19],
  ];
  for (const [name, recorded, batchMs, pause] of rows) assert.is(share.pauseAfter(recorded, batchMs), pause, name);
});

test('envelopeHead: seq, ts and type from the line head, else from the whole line, else nothing', () => {
  const rows: Array<[string, string, ReturnType<typeof envelopeHead>]> = [
    ['as Meridian writes it', '{"seq":41,"ts":"2026-03-18T00:05:48.955Z","type":"dome \\"a\\"","data":1,"meta":{}}', { seq: 41, ts: '2026-03-18T00:05:48.955Z', type: 'dome "a"' }],
    ['the original service (stream key first)', '{"stream":"x","type":"w","seq":3,"ts":"2026-03-18T00:05:48.955Z","data":1}', { seq: 3, ts: '2026-03-18T00:05:48.955Z', type: 'w' }],
    ['not JSON', '{"seq":1,"ts', undefined],
    ['no seq', '{"ts":"x","type":"w"}', undefined],
  ];
  for (const [name, line, head] of rows) assert.equal(envelopeHead(line), head, name);
});

test('topicOfType: MQTT wildcards and % are escaped, the rest kept', () => {
  const rows: Array<[string, string]> = [['weather', 'weather'], ['dome status', 'dome status'], ['a+b#c%d', 'a%2Bb%23c%25d'], ['mount/axis', 'mount/axis']];
  for (const [type, topic] of rows) assert.is(topicOfType(type), topic, type);
});

test('ndjsonBody: one record per line with id, stream, seq and the envelope byte for byte', () => {
  const line = '{"seq":7,"ts":"2026-03-18T00:05:48.955Z","type":"w","data":1.0,"meta":{}}';
  const record: ForwardRecord = { stream: '042', seq: 7, ts: '', type: 'w', line, file: 'f', end: 0 };
  assert.is(ndjsonBody([record, { ...record, seq: 8 }]),
    `{"id":"042:7","stream":"042","seq":7,"envelope":${line}}\n{"id":"042:8","stream":"042","seq":8,"envelope":${line}}\n`);
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
});

test.run();
