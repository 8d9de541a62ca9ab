import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TelemetryClient, TelemetryClientError } from '../client/index.js';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { rejection } from './helpers/rejection.js';
import { readLines } from './helpers/tmp.js';

// TelemetryClient.postEvents and postEventLines against the real daemon.

const T0 = '2026-03-17T20:05:48.955Z';
const SITE_FILE = 'site_20260317.ndjson';

const withClient = (fn: (client: TelemetryClient, siteFile: string) => Promise<void>) =>
  withTestDaemon({ clock: new ManualClock(T0), env: { TZ: 'UTC' } }, (d) =>
    fn(new TelemetryClient({ baseUrl: d.url, env: {} }), path.join(d.siteDir, SITE_FILE)));

test('postEvents sends camelCase events as the wire form and resolves the summary', () => withClient(async (client, file) => {
  const answer = await client.postEvents([
    { type: 'weather', data: { t: 1 }, meta: { station: 'ws1' } },
    { type: 'weather', data: { t: 2 }, makeCurrent: false },
  ]);
  assert.equal(answer, { recorded: 2, first_seq: 1, last_seq: 2, run_id: null });
  assert.equal(readLines(file), [
    { seq: 1, ts: T0, type: 'weather', data: { t: 1 }, meta: { station: 'ws1' } },
    { seq: 2, ts: T0, type: 'weather', data: { t: 2 }, meta: {} },
  ]);
  assert.equal((await client.currentEvent('weather')).seq, 1);
}));

test('an invalid event rejects with 422 INVALID_BATCH and the failures in error.answer', () => withClient(async (client, file) => {
  const error = await rejection(client.postEvents([{ type: 'ok', data: 1 }, { type: '', data: 2 }]));
  assert.instance(error, TelemetryClientError);
  const e = error as TelemetryClientError;
  assert.equal([e.statusCode, e.code, e.detail], [422, 'INVALID_BATCH', '1 of 2 event(s) are invalid; nothing was recorded.']);
  assert.equal(e.answer?.failures, [{ index: 1, code: 'INVALID_BODY', detail: 'type must not be empty.' }]);
  assert.is(fs.existsSync(file), false);
}));

test('partial: still a rejection when some were invalid, saying what was recorded', () => withClient(async (client, file) => {
  const e = await rejection(client.postEventLines(['{"type":"a","data":1}', '{"type":"b"}', '{"type":"c","data":3}'], { partial: true })) as TelemetryClientError;
  assert.equal([e.statusCode, e.code], [422, 'BATCH_PARTLY_RECORDED']);
  assert.equal(e.answer, {
    detail: '2 of 3 event(s) were recorded; the 1 invalid one(s) listed in failures were not.', code: 'BATCH_PARTLY_RECORDED',
    recorded: 2, first_seq: 1, last_seq: 2, run_id: null, recorded_indexes: [0, 2],
    failures: [{ index: 1, line: 2, code: 'INVALID_BODY', detail: 'data is required (null counts as given).' }],
  });
  assert.equal(readLines(file).map((l: any) => l.type), ['a', 'c']);
  assert.equal(await client.postEventLines(['{"type":"d","data":4,"unknown":"ignored"}'], { partial: true }),
    { recorded: 1, first_seq: 3, last_seq: 3, run_id: null });
}));

test.run();
