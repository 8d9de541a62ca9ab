import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';

// A change recorded out of time order (a POCS state, a safety verdict, a staleness turn) is
// counted at its ts in the night report, and the gaps are split at it (hostile G finding 6):
// the report of the events posted out of order is the report of the same events in time order
// (but for the first and last event, which are in record order).

const at = (day: number, h: number, m: number) => new Date(Date.UTC(2026, 10, day, h, m)).toISOString();
const WEATHER = [...Array.from({ length: 11 }, (_, m) => at(22, 20, m)), ...Array.from({ length: 20 }, (_, m) => at(22, 20, 40 + m)), at(23, 3, 0)]
  .map((ts, i) => ({ type: 'weather', ts, data: { t: i } }));
// the meridian.* verdicts are recorded by the daemon alone, on its own clock: a caller's state is what comes out of order
const CHANGES = [
  { type: 'state', ts: at(22, 20, 20), data: { source: 'a', dest: 'observing' } },
  { type: 'state', ts: at(22, 20, 52), data: { source: 'observing', dest: 'parking' } },
  { type: 'status', ts: at(22, 20, 45), data: { state: 'observing' } },
];
const byTs = (a: { ts: string }, b: { ts: string }) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0);

async function report(events: object[]): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  await withTestDaemon({ clock: new ManualClock('2026-11-24T00:00:00.000Z'), env: { TZ: 'UTC' }, freshnessIntervalMs: 0 }, async (d) => {
    const posted = await request(d.url, '/events', { method: 'POST', body: events.map((e) => JSON.stringify(e)).join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
    assert.is(posted.status, 200, posted.text);
    const answer = await request(d.url, '/reports/night/20261122');
    assert.is(answer.status, 200, answer.text);
    body = JSON.parse(answer.text) as Record<string, unknown>;
  });
  return body;
}

const ROWS: [name: string, order: (w: object[], c: object[]) => object[]][] = [
  ['every change recorded after all the weather', (w, c) => [...w, ...c]],
  ['the changes recorded newest first, before the weather', (w, c) => [...[...c].reverse(), ...w]],
  ['the changes recorded newest first, after the weather', (w, c) => [...w, ...[...c].reverse()]],
];

test('in time order: the states, verdicts, staleness and gaps (the reference)', async () => {
  const r = await report([...WEATHER, ...CHANGES].sort(byTs));
  // observing from 20:20 (a gap until 20:40) to 20:52, parking to 20:59 (then nothing is recorded until 03:00, and after it)
  assert.equal(r.states, [{ state: 'observing', seconds: 720, entered: 1 }, { state: 'parking', seconds: 420, entered: 1 }]);
  assert.equal((r.gaps as { list: unknown }).list, [
    { from: '2026-11-22T12:00:00.000Z', to: '2026-11-22T20:00:00.000Z', seconds: 28800 },
    { from: '2026-11-22T20:10:00.000Z', to: '2026-11-22T20:20:00.000Z', seconds: 600 },
    { from: '2026-11-22T20:20:00.000Z', to: '2026-11-22T20:40:00.000Z', seconds: 1200 },
    { from: '2026-11-22T20:59:00.000Z', to: '2026-11-23T03:00:00.000Z', seconds: 21660 },
    { from: '2026-11-23T03:00:00.000Z', to: '2026-11-23T12:00:00.000Z', seconds: 32400 },
  ]);
});

for (const [name, order] of ROWS) {
  test(`out of time order, counted at their ts: ${name}`, async () => {
    const reference = await report([...WEATHER, ...CHANGES].sort(byTs));
    const r = await report(order(WEATHER, CHANGES));
    for (const key of ['states', 'gaps', 'counts', 'weather']) assert.equal(r[key], reference[key], key);
  });
}

test.run();
