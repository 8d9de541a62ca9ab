import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { benchSmoke } from './helpers/bench-smoke.js';

// `npm run bench` is how every speed and memory target is checked, so it must run: every phase,
// start to end, on tiny sizes (one round of one second). Nothing here looks at a figure's size
// (the bench never fails on a missed target, and a test is never timed); it checks that each
// phase ran and printed its line, and that the correctness check found every event.
// (Its forwarding phase once crashed on a changed insert statement, unnoticed for a round.)
// This file runs the ingest, start-up, forwarding and history phases; bench-smoke-more the rest.

test('npm run bench: the ingest, start-up, forwarding and history phases run to the end on tiny sizes and find every acknowledged event', async () => {
  const figures = await benchSmoke(['post', 'get', 'rss', 'startup', 'forward', 'batch', 'metrics', 'compress', 'history', 'history-gz'], [
    /^POST \/event --fsync batch c16 /m,
    /^peak RSS after \d+ events: /m,
    /^start-up with 5000 lines /m,
    /^ {2}postgres {2}2000 events: raw \d+\/s, sink \d+\/s = /m,
    /^ {2}mqtt {6}2000 events: raw \d+\/s, sink \d+\/s = /m,
    /^ {2}http {6}2000 events: raw \d+\/s, sink \d+\/s = /m,
    /^ {2}POST \/event c16 with postgres\+mqtt catching up: \d+ req\/s vs \d+ without = /m,
    /^history over compressed days \/ plain days, 5000 lines: /m,
  ], ['POST /event baseline c1', 'POST /event --fsync batch c16', 'GET /current c16 (1,000 types)', 'GET /current/{type} c16',
    'memory', 'startup', 'forward', 'batchIngest', 'metricsScrape', 'compression', 'history', 'historyGz']);
  const forward = figures.forward as Record<string, { events: number; ratio: number }>;
  for (const kind of ['postgres', 'mqtt', 'http']) {
    assert.is(forward[kind]!.events, 2000);
    assert.ok(forward[kind]!.ratio > 0, `${kind} catch-up gave no figure`);
  }
});

test.run();
