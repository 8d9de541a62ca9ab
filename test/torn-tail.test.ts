import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon, type RunningDaemon } from '../daemon/server.js';
import { resolveDaemonConfig, type DaemonFlags } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { ManualClock } from './helpers/clock.js';
import { postEvent, request } from './helpers/http.js';
import { startTestDaemon } from './helpers/daemon.js';
import { idsOf, QUICK, sinkStatus, sinksOf, startPeer, waitFor } from './helpers/forward.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A torn last line in a plain file nothing writes to (a past day's, a stopped run's) is named
// like the .gz twin: damaged in /history, /status and the log once, the lines before it served;
// compression keeps the torn bytes, and the .gz then names them the same way (hostile test C,
// issue 23, finding 10: the line was dropped silently).

const NOW = '2026-03-17T20:00:00.000Z';
const DAY = 86_400_000;

async function daemonOn(dir: string, flags: DaemonFlags, log: string[]): Promise<{ d: RunningDaemon; url: string }> {
  const logger = createLogger((l) => log.push(l), 'info', () => Date.parse(NOW));
  const config = { ...resolveDaemonConfig({ host: '127.0.0.1', siteDir: dir, ...flags }, { TZ: 'UTC' }, dir), port: 0 };
  const d = await startDaemon(config, { clock: new ManualClock(NOW), logger, snapshotIntervalMs: 0, housekeepingIntervalMs: 0 });
  return { d, url: `http://127.0.0.1:${d.port}` };
}

function line(seq: number): string {
  return `${JSON.stringify({ seq, ts: '2026-03-10T20:00:00.000Z', type: 'a', data: seq, meta: {} })}\n`;
}

/** Cut the last `bytes` bytes off a file and date it `ageMs` before NOW. */
function tear(file: string, bytes: number, ageMs: number): void {
  fs.truncateSync(file, fs.statSync(file).size - bytes);
  const when = new Date(Date.parse(NOW) - ageMs);
  fs.utimesSync(file, when, when);
}

const ids = (events: any[]) => events.map((e) => `${e.meta.run_id ?? 'site'}:${e.seq}`);

test('a torn last line of a past day file and of a stopped run file: named damaged, logged once, the rest served; compressed with the torn bytes kept', async () => {
  const dir = tempDir();
  const day = path.join(dir, 'site_20260310.ndjson');
  fs.writeFileSync(day, [1, 2, 3, 4, 5, 6].map(line).join(''));
  tear(day, 20, 7 * DAY);
  // a later day after it: the last day file is the one start-up cuts a torn line of (the file it writes to)
  const later = path.join(dir, 'site_20260311.ndjson');
  fs.writeFileSync(later, [7, 8].map(line).join(''));
  fs.utimesSync(later, new Date(Date.parse(NOW) - 6 * DAY), new Date(Date.parse(NOW) - 6 * DAY));
  const run = path.join(dir, 'r1', 'telemetry.ndjson');
  const log: string[] = [];
  const first = await daemonOn(dir, {}, log);
  try {
    assert.is((await request(first.url, '/run/start', { body: { run_id: 'r1' } })).status, 200);
    for (const n of [1, 2, 3]) await postEvent(first.url, { type: 'cam', data: n });
    assert.is((await request(first.url, '/run/stop', { body: {} })).status, 200);
  } finally {
    await first.d.close();
  }
  const runLine3 = fs.readFileSync(run, 'utf8').split('\n')[2]!;
  tear(run, 10, 7 * DAY);
  const dayReason = `it ends inside a line (its last ${line(6).length - 20} bytes form no whole line): a torn last line`;
  const runReason = `it ends inside a line (its last ${runLine3.length - 9} bytes form no whole line): a torn last line`;
  log.length = 0;
  const second = await daemonOn(dir, {}, log);
  try {
    const history = (await request(second.url, '/history')).json;
    assert.equal(ids(history.events), ['site:1', 'site:2', 'site:3', 'site:4', 'site:5', 'site:7', 'site:8', 'r1:1', 'r1:2']);
    assert.equal(history.damaged, [{ file: day, reason: dayReason }, { file: run, reason: runReason }]);
    await request(second.url, '/history');
    assert.equal((await request(second.url, '/status')).json.damaged, [{ file: day, reason: dayReason }, { file: run, reason: runReason }]);
    assert.equal(log.filter((l) => l.includes('damaged')), [
      `2026-03-17T20:00:00.000Z ERROR ${day} is damaged: ${dayReason}; what it holds besides is served\n`,
      `2026-03-17T20:00:00.000Z ERROR ${run} is damaged: ${runReason}; what it holds besides is served\n`,
    ]);
    // not cut: the file keeps its bytes (the operator may mend it)
    assert.is(fs.statSync(day).size, [1, 2, 3, 4, 5, 6].map(line).join('').length - 20);
  } finally {
    await second.d.close();
  }
  const third = await daemonOn(dir, { compressAfter: '2d' }, log);
  try {
    const pass = await third.d.housekeeping!.runOnce();
    assert.equal(pass.compressed.sort(), [run, later, day].sort());
    const history = (await request(third.url, '/history')).json;
    assert.equal(ids(history.events), ['site:1', 'site:2', 'site:3', 'site:4', 'site:5', 'site:7', 'site:8', 'r1:1', 'r1:2']);
    assert.equal(history.damaged, [
      { file: `${day}.gz`, reason: `its member at byte 0 ends inside a line (its last ${line(6).length - 20} bytes form no whole line)` },
      { file: `${run}.gz`, reason: `its member at byte 0 ends inside a line (its last ${runLine3.length - 9} bytes form no whole line)` },
    ]);
  } finally {
    await third.d.close();
    removeDir(dir);
  }
});

test('a sink that delivered a torn day file up to its last whole line does not hold its compression back', async () => {
  const peer = await startPeer();
  const dir = tempDir();
  const day = path.join(dir, 'site_20260310.ndjson');
  fs.writeFileSync(day, [1, 2, 3].map(line).join(''));
  tear(day, 20, 7 * DAY);
  const later = path.join(dir, 'site_20260311.ndjson');
  fs.writeFileSync(later, [4, 5].map(line).join(''));
  fs.utimesSync(later, new Date(Date.parse(NOW) - 6 * DAY), new Date(Date.parse(NOW) - 6 * DAY));
  const d = await startTestDaemon({ siteDir: dir, clock: new ManualClock(NOW), env: { TZ: 'UTC' }, flags: { compressAfter: '2d' },
    forward: sinksOf(`[[sink]]\nname = "peer"\nurl = "${peer.url}"\n${QUICK}`) });
  try {
    // the sink names the torn bytes itself (passed over) and goes on: its file is delivered
    const status = await waitFor('the sink at the end', async () => {
      const st = await sinkStatus(d.url, 'peer');
      return st.lag_events === 0 && st.delivered === 4 ? st : undefined;
    });
    assert.equal(status.skipped, [`${day} ends in ${line(3).length - 20} byte(s) that are no whole line (after site:2): passed over`]);
    assert.equal(idsOf(peer.records), ['site:1', 'site:2', 'site:4', 'site:5']);
    const pass = await d.daemon.housekeeping!.runOnce();
    assert.equal([pass.compressed.sort(), pass.protected], [[day, later], []]);
  } finally {
    await d.close();
    await peer.down();
    removeDir(dir);
  }
});

test.run();
