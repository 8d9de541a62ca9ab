import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, withTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { waitFor } from './helpers/forward.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A restart in another zone (TZ): the checkpoint names the zone its night buckets were cut in;
// started in another, the daemon says so and rebuilds the rollups from the recorded files, so
// the open night (and every night the files give) has the new zone's bounds, as a daemon that
// always ran in it has (docs/rollups.md "Tiers and buckets").

const NOW = '2026-11-21T02:00:00.000Z';
// New York's night of 11-19 ends at 2026-11-20T17:00Z: two readings in it, two in the next (open)
const READINGS = ['2026-11-20T14:00:00.000Z', '2026-11-20T16:00:00.000Z', '2026-11-20T18:00:00.000Z', '2026-11-20T20:00:00.000Z']
  .map((ts, i) => `{"type":"weather","ts":"${ts}","data":{"t":${i + 0.5}}}`).join('\n');

async function post(d: TestDaemon): Promise<void> {
  const answer = await request(d.url, '/events', { method: 'POST', body: READINGS, headers: { 'content-type': 'application/x-ndjson' } });
  assert.is(answer.status, 200, answer.text);
}

async function nights(d: TestDaemon): Promise<string> {
  const answer = await request(d.url, '/history?type=weather&step=night&from=2026-11-18T00:00:00Z&to=2026-11-22T00:00:00Z');
  assert.is(answer.status, 200, answer.text);
  return answer.text;
}

test('restarted in another zone: the rollups rebuilt, the nights (the open one too) cut in the new zone', async () => {
  const siteDir = tempDir();
  try {
    const ny = await startTestDaemon({ clock: new ManualClock(NOW), env: { TZ: 'America/New_York' }, siteDir, freshnessIntervalMs: 0 });
    try {
      await post(ny);
      const starts = (JSON.parse(await nights(ny)) as { buckets: { start: string }[] }).buckets.map((b) => b.start);
      assert.equal(starts, ['2026-11-19T17:00:00.000Z', '2026-11-20T17:00:00.000Z']);
    } finally {
      await ny.close();
    }
    let reference = '';
    await withTestDaemon({ clock: new ManualClock(NOW), env: { TZ: 'UTC' }, freshnessIntervalMs: 0 }, async (d) => {
      await post(d);
      reference = await nights(d);
    });
    assert.equal((JSON.parse(reference) as { buckets: { start: string }[] }).buckets.map((b) => b.start), ['2026-11-20T12:00:00.000Z']);
    await withTestDaemon({ clock: new ManualClock(NOW), env: { TZ: 'UTC' }, siteDir, freshnessIntervalMs: 0 }, async (d) => {
      await waitFor('the build to end', () => (d.logs.some((l) => l.includes('rollups built from the recorded files in')) ? true : undefined));
      assert.ok(d.logs.some((l) => l.endsWith('WARN the rollup checkpoint cannot be resumed (its night buckets were cut in the zone America/New_York, the daemon runs in UTC); ' +
        'rebuilding the rollups from the recorded files')), d.logs.join('\n'));
      assert.is(await nights(d), reference);
    });
  } finally {
    removeDir(siteDir);
  }
});

test.run();
