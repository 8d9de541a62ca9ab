import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { caughtUp, idRange, idsOf, QUICK, sinksOf, startPeer, waitFor, type Peer } from './helpers/forward.js';
import { postEvent } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Forwarding when the clock steps back while a sink is still catching up on an older backlog
// (it reads an earlier day file while the store writes the newest): every site event is
// delivered exactly once, whichever day the clock steps back into (docs/forwarding.md).
// Site days in UTC: 13:00 on the 15th, 16th, 17th are days 20260315-17; 11:00 on the 17th
// is day 20260316 again, 11:00 on the 16th day 20260315.

const SINK = (url: string) => `[[sink]]\nname = "peer"\nurl = "${url}"\n${QUICK}`;

type Step = ['at', string] | ['post', number] | ['down'] | ['up'] | ['settle'] | ['restart'];

// [name, steps, ids delivered, in order]
const CASES: [string, Step[], string[]][] = [
  ['back into the day after the one the sink reads', [
    ['down'], ['at', '2026-03-15T13:00:00.000Z'], ['post', 3], ['at', '2026-03-16T13:00:00.000Z'], ['post', 3],
    ['at', '2026-03-17T13:00:00.000Z'], ['post', 3], ['at', '2026-03-17T11:00:00.000Z'], ['post', 2], ['up'], ['settle'],
    ['at', '2026-03-17T14:00:00.000Z'], ['post', 1], ['at', '2026-03-17T11:30:00.000Z'], ['post', 1], ['settle'],
  ], idRange('site', 1, 13)],
  ['back into the very day the sink reads', [
    ['down'], ['at', '2026-03-15T13:00:00.000Z'], ['post', 3], ['at', '2026-03-16T13:00:00.000Z'], ['post', 3],
    ['at', '2026-03-17T13:00:00.000Z'], ['post', 3], ['at', '2026-03-16T11:00:00.000Z'], ['post', 2], ['up'], ['settle'],
    ['at', '2026-03-17T14:00:00.000Z'], ['post', 1], ['settle'],
  ], idRange('site', 1, 12)],
  ['recorded before a restart: the days before it are read in name order, each event once', [
    ['down'], ['at', '2026-03-15T13:00:00.000Z'], ['post', 3], ['at', '2026-03-16T13:00:00.000Z'], ['post', 3],
    ['at', '2026-03-17T13:00:00.000Z'], ['post', 3], ['at', '2026-03-17T11:00:00.000Z'], ['post', 2], ['restart'], ['up'], ['settle'],
    ['at', '2026-03-17T14:00:00.000Z'], ['post', 1], ['at', '2026-03-17T11:30:00.000Z'], ['post', 1], ['settle'],
  ], [...idRange('site', 1, 6), 'site:10', 'site:11', ...idRange('site', 7, 9), 'site:12', 'site:13']],
  ['back into a day before the one the sink reads', [
    ['at', '2026-03-15T13:00:00.000Z'], ['post', 3], ['at', '2026-03-16T13:00:00.000Z'], ['post', 3], ['settle'], ['down'],
    ['at', '2026-03-17T13:00:00.000Z'], ['post', 3], ['at', '2026-03-16T11:00:00.000Z'], ['post', 2], ['up'], ['settle'],
    ['at', '2026-03-17T14:00:00.000Z'], ['post', 1], ['settle'],
  ], idRange('site', 1, 12)],
];

/** Run the steps on a daemon; `settle` waits until the sink has delivered every event posted so far. Returns the daemon running at the end. */
async function play(start: () => Promise<TestDaemon>, clock: ManualClock, peer: Peer, steps: Step[]): Promise<TestDaemon> {
  let d = await start();
  try {
    await playOn();
  } catch (error) {
    await d.close();
    throw error;
  }
  return d;

  async function playOn(): Promise<void> {
    let posted = 0;
    for (const step of steps) {
      if (step[0] === 'at') clock.set(step[1]);
      else if (step[0] === 'post') for (let i = 0; i < step[1]; i++) await postEvent(d.url, { type: 'weather', data: ++posted });
      else if (step[0] === 'down') await peer.down();
      else if (step[0] === 'up') await peer.up();
      else if (step[0] === 'restart') {
        await d.close();
        d = await start();
      } else {
        await waitFor(`${posted} events delivered`, () => new Set(idsOf(peer.records)).size >= posted || undefined)
          .catch((e: Error) => { throw new Error(`${e.message}: ${idsOf(peer.records).join(' ')}`); });
        await caughtUp(d.url, 'peer');
      }
    }
  }
}

for (const [name, steps, expected] of CASES) {
  test(`the clock steps back while a sink catches up, ${name}: each event delivered once`, async () => {
    const peer = await startPeer();
    const siteDir = tempDir();
    const clock = new ManualClock('2026-03-15T13:00:00.000Z');
    try {
      const d = await play(() => startTestDaemon({ siteDir, clock, env: { TZ: 'UTC' }, forward: sinksOf(SINK(peer.url)) }), clock, peer, steps);
      try {
        // one more event, recorded after all: once it arrives, nothing read before it is still on its way
        await postEvent(d.url, { type: 'mark', data: 0 });
        await waitFor('the mark delivered', () => peer.records.some((r) => r.id === `site:${expected.length + 1}`) || undefined);
        assert.equal(idsOf(peer.records), [...expected, `site:${expected.length + 1}`]);
        const status = await caughtUp(d.url, 'peer');
        assert.equal({ state: status.state, lag: status.lag_events, skipped: status.skipped }, { state: 'ok', lag: 0, skipped: [] });
      } finally {
        await d.close();
      }
    } finally {
      await peer.down();
      removeDir(siteDir);
    }
  });
}

test.run();
