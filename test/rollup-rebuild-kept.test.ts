import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// A rebuild after the raw files are gone keeps what the tiers hold (hostile G finding 2): every
// tier of every type, open buckets included (a type whose readings all lie in its open minute
// too), and a reading older than the kept ones, posted after, is late in the live daemon and in
// the rebuild alike; the tiers never contradict each other. A second rebuild gives the same bytes.

const clock = () => new ManualClock('2026-11-20T10:10:00.000Z');
const X = Array.from({ length: 6 }, (_, i) => ({ type: 'x', ts: `2026-11-20T10:0${i}:00.000Z`, data: { v: i + 0.5 } }));
// every reading of y in one minute: its 1-minute bucket is still open
const Y = Array.from({ length: 6 }, (_, i) => ({ type: 'y', ts: `2026-11-20T10:07:${i}0.000Z`, data: { v: i } }));

async function tiers(d: TestDaemon): Promise<string[]> {
  const answers: string[] = [];
  for (const type of ['x', 'y']) {
    for (const step of ['1m', '15m', '1h', 'night']) {
      const answer = await request(d.url, `/history?type=${type}&step=${step}&from=2026-11-15T00:00:00Z&to=2026-11-22T00:00:00Z`);
      assert.is(answer.status, 200, answer.text);
      answers.push(answer.text);
    }
  }
  return answers;
}

async function rebuild(d: TestDaemon, late: number): Promise<void> {
  const answer = await request(d.url, '/rollups/rebuild', { method: 'POST' });
  assert.is(answer.text, `{"rebuilt":true,"late":${late}}`);
}

/** Every tier file of x and y (a missing one as null: a tier whose only bucket is open has none). */
const tierBytes = (siteDir: string) => Object.fromEntries(['1m', '15m', '1h', 'night'].flatMap((tier) => ['x', 'y'].map((type) => {
  const file = path.join(siteDir, '.meridian', 'rollups', tier, `${type}.ndjson`);
  return [`${tier}/${type}`, fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null];
})));

test('the raw files moved away, a rebuild keeps every tier and open bucket; an older reading after is late; a second rebuild the same bytes', async () => {
  const siteDir = tempDir();
  const away = tempDir();
  try {
    const first = await startTestDaemon({ clock: clock(), env: { TZ: 'UTC' }, siteDir, freshnessIntervalMs: 0 });
    let before: string[];
    try {
      const posted = await request(first.url, '/events', { method: 'POST', body: [...X, ...Y].map((e) => JSON.stringify(e)).join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
      assert.is(posted.status, 200, posted.text);
      before = await tiers(first);
      assert.is(JSON.parse(before[0]!).buckets.length, 6);
      assert.is(JSON.parse(before[4]!).buckets.length, 1);
    } finally {
      await first.close();
    }
    const raw = fs.readdirSync(siteDir).filter((name) => name.endsWith('.ndjson'));
    assert.equal(raw, ['site_20261119.ndjson']);
    for (const name of raw) fs.renameSync(path.join(siteDir, name), path.join(away, name));
    const second = await startTestDaemon({ clock: clock(), env: { TZ: 'UTC' }, siteDir, freshnessIntervalMs: 0 });
    try {
      await rebuild(second, 0);
      assert.equal(await tiers(second), before);
      // older than x's last reading kept: late, left out of every tier (live, then in the rebuild)
      const late = await request(second.url, '/event', { body: '{"type":"x","ts":"2026-11-19T10:00:00.000Z","data":{"v":99}}', headers: { 'content-type': 'application/json' } });
      assert.is(late.status, 200, late.text);
      assert.equal(await tiers(second), before);
      await rebuild(second, 1);
      assert.equal(await tiers(second), before);
      const bytes = tierBytes(siteDir);
      await rebuild(second, 1);
      assert.equal(tierBytes(siteDir), bytes);
      // a newer reading goes on from the kept open buckets
      const newer = await request(second.url, '/event', { body: '{"type":"y","ts":"2026-11-20T10:08:00.000Z","data":{"v":6}}', headers: { 'content-type': 'application/json' } });
      assert.is(newer.status, 200, newer.text);
      const minutes = JSON.parse((await request(second.url, '/history?type=y&step=1m&from=2026-11-20T10:00:00Z&to=2026-11-20T10:10:00Z')).text) as { buckets: { start: string; fields: { 'data.v': { count: number } } }[] };
      assert.equal(minutes.buckets.map((b) => [b.start, b.fields['data.v'].count]), [['2026-11-20T10:07:00.000Z', 6], ['2026-11-20T10:08:00.000Z', 1]]);
    } finally {
      await second.close();
    }
  } finally {
    removeDir(siteDir);
    removeDir(away);
  }
});

// two nights of x and y: the older or the newer day file removed (retention, or by hand)
const early = (type: string) => Array.from({ length: 5 }, (_, i) => ({ type, ts: `2026-11-18T10:0${i}:30.000Z`, data: { v: i * 1.25 } }));
const ROWS: [name: string, remove: string][] = [
  ['the older day file removed (as --retain does)', 'site_20261117.ndjson'],
  ['the newer day file removed (the newest readings only in the tiers)', 'site_20261119.ndjson'],
];

for (const [name, remove] of ROWS) {
  test(`a rebuild keeps every tier: ${name}`, async () => {
    const siteDir = tempDir();
    try {
      // the day file is the one of the recording's time: each night's readings recorded that night
      const time = new ManualClock('2026-11-18T10:10:00.000Z');
      const first = await startTestDaemon({ clock: time, env: { TZ: 'UTC' }, siteDir, freshnessIntervalMs: 0 });
      let before: string[];
      try {
        for (const events of [[...early('x'), ...early('y')], [...X, ...Y]]) {
          const posted = await request(first.url, '/events', { method: 'POST', body: events.map((e) => JSON.stringify(e)).join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
          assert.is(posted.status, 200, posted.text);
          time.set('2026-11-20T10:10:00.000Z');
        }
        before = await tiers(first);
      } finally {
        await first.close();
      }
      assert.equal(fs.readdirSync(siteDir).filter((n) => n.endsWith('.ndjson')).sort(), ['site_20261117.ndjson', 'site_20261119.ndjson']);
      fs.rmSync(path.join(siteDir, remove));
      const second = await startTestDaemon({ clock: clock(), env: { TZ: 'UTC' }, siteDir, freshnessIntervalMs: 0 });
      try {
        await rebuild(second, 0);
        assert.equal(await tiers(second), before);
        const bytes = tierBytes(siteDir);
        await rebuild(second, 0);
        assert.equal(tierBytes(siteDir), bytes);
      } finally {
        await second.close();
      }
    } finally {
      removeDir(siteDir);
    }
  });
}

test.run();
