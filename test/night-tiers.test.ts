import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, withTestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { removeDir } from './helpers/tmp.js';

// The night report reads a night's weather min/mean/max from the rollups' 1-minute tier when
// they hold every weather reading as the report reads it, else from the readings
// (docs/reports.md "Speed"). The answer is the same either way: the report of a daemon with
// rollups on is held against one with --rollups off over the same readings, byte for byte
// but for the means (within 1e-9 relative: the sums are added in another order).

const UTC_NIGHT = { day: '20260317', zone: 'UTC', now: '2026-03-18T20:00:00.000Z', at: (min: number, s = 0) => new Date(Date.UTC(2026, 2, 17, 12, min, s)).toISOString() };
// the night DST begins in New York: 23 hours, its 96 slices 14 min 22.5 s long (a 1-minute bucket can span two)
const DST_NIGHT = { day: '20260307', zone: 'America/New_York', now: '2026-03-09T00:00:00.000Z', at: (min: number, s = 0) => new Date(Date.UTC(2026, 2, 7, 17, min, s)).toISOString() };

type Night = typeof UTC_NIGHT;
type Reading = [data: string, minute: number, second?: number];

/** Readings spelled every way, over several minutes and series slices, with nested members, ties and other types between. */
const PLAIN: Reading[] = [
  ['{"t":1.50,"h":40,"wind":{"speed":3}}', 0], ['{"t":2e0,"h":41}', 0, 30], ['{"t":-0.0,"h":40.0}', 1],
  ['{"t": 7 ,"h":39.99}', 14, 59], ['{"t":7.0,"h":45,"s":"x"}', 15], ['{"t":0.1,"h":0.2}', 15, 1],
  ['{"t":0.30000000000000004,"h":1e2}', 600], ['{"t":-31.5,"h":12.500,"rain":false}', 1439, 59],
];
const ROWS: [name: string, night: Night, readings: Reading[]][] = [
  ['plain readings (read from the tiers)', UTC_NIGHT, PLAIN],
  ['a key holding "." (not a tier field): from the readings', UTC_NIGHT, [...PLAIN, ['{"a.b":5,"t":3}', 700]]],
  ['an empty key: from the readings', UTC_NIGHT, [...PLAIN, ['{"":5,"t":3}', 700]]],
  ['a key given twice, a number then a string: from the readings', UTC_NIGHT, [...PLAIN, ['{"t":3,"t":"x"}', 700]]],
  ['70 numeric members (the tiers keep 64): from the readings', UTC_NIGHT, [...PLAIN, [`{${Array.from({ length: 70 }, (_, i) => `"f${i}":${i}`).join(',')}}`, 700]]],
  ['a late reading (ts before the one before): from the readings', UTC_NIGHT, [...PLAIN, ['{"t":99}', 1]]],
  ['a DST night (slices not on whole minutes): from the readings', DST_NIGHT, [['{"t":1}', 14], ['{"t":100}', 14, 30], ['{"t":5}', 900]]],
];

/** The report of `night` over `readings`, from a daemon with rollups `rollups`. */
async function report(night: Night, readings: Reading[], rollups: 'on' | 'off', keep?: (siteDir: string) => Promise<void>): Promise<string> {
  const d = await startTestDaemon({ clock: new ManualClock(night.now), env: { TZ: night.zone }, flags: { rollups }, freshnessIntervalMs: 0 });
  try {
    const body = readings.map(([data, m, s]) => `{"type":"weather","data":${data},"ts":"${night.at(m, s)}"}\n{"type":"mount","data":{"ra":${m}}}`).join('\n');
    const posted = await request(d.url, '/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
    assert.is(posted.status, 200, posted.text);
    const answer = await request(d.url, `/reports/night/${night.day}`);
    assert.is(answer.status, 200, answer.text);
    await keep?.(d.siteDir);
    return answer.text;
  } finally {
    await d.close();
    if (!keep) removeDir(d.siteDir);
  }
}

/** The report with every mean (and series mean) taken out, and the means by where they were. */
function split(text: string): { rest: string; means: number[] } {
  const means: number[] = [];
  const rest = text.replace(/("mean":|",)(-?[\d.eE+-]+)(?=[,\]}])/g, (_m, key: string, n: string) => {
    means.push(Number(n));
    return `${key}#`;
  });
  return { rest, means };
}

for (const [name, night, readings] of ROWS) {
  test(`the report is the same with rollups on and off: ${name}`, async () => {
    const on = split(await report(night, readings, 'on'));
    const off = split(await report(night, readings, 'off'));
    assert.is(on.rest, off.rest);
    assert.is(on.means.length, off.means.length);
    on.means.forEach((m, i) => assert.ok(Math.abs(m - off.means[i]!) <= 1e-9 * Math.abs(off.means[i]!), `mean ${i}: ${m} against ${off.means[i]}`));
  });
}

test('a complete night with plain readings is read from the tiers (a tier line changed shows in the report)', async () => {
  let siteDir = '';
  const before = await report(UTC_NIGHT, PLAIN, 'on', async (dir) => { siteDir = dir; });
  try {
    const file = path.join(siteDir, '.meridian', 'rollups', '1m', 'weather.ndjson');
    const text = fs.readFileSync(file, 'utf8');
    // the first minute's min of t, 1.50, spelled -100 (the same length: the checkpoint's lengths still hold)
    assert.is(text.split('"min":1.50,').length, 2);
    fs.writeFileSync(file, text.replace('"min":1.50,', '"min":-100,'));
    await withTestDaemon({ clock: new ManualClock(UTC_NIGHT.now), env: { TZ: 'UTC' }, siteDir, freshnessIntervalMs: 0 }, async (d) => {
      const after = await request(d.url, `/reports/night/${UTC_NIGHT.day}`);
      assert.ok(before.includes('"t":{"count":8,"min":-31.5,'), before);
      assert.is(after.text, before.replace('"t":{"count":8,"min":-31.5,', '"t":{"count":8,"min":-100,'));
    });
  } finally {
    removeDir(siteDir);
  }
});

// the tiers are used only when they hold exactly the readings the raw fold reads, field by field
// and slice by slice (hostile G finding 1): each edit keeps the file's length (the checkpoint's
// lengths still hold, nothing is rebuilt) and the report is the one read from the readings
const EDITS: [name: string, edit: (text: string) => string][] = [
  ['a bucket line blanked (readings missing)', (text) => text.replace(/^.*"min":1.50,.*$/m, (line) => ' '.repeat(line.length))],
  ['the last closed bucket line blanked', (text) => text.replace(/^.*"min":0.30000000000000004,.*$/m, (line) => ' '.repeat(line.length))],
  ['a count of 1 made 2 (a reading more in its slice)', (text) => text.replace(/("data.t":\{"first":-0.0,[^}]*"count":)1,/, '$12,')],
  ['a bucket moved to another slice (as many readings, in the wrong part of the night)', (text) => text.replace(/"s":(\d+),"e":(\d+),"f":\{"data.t":\{"first":0.30000000000000004/, (_m, a: string, b: string) => `"s":${Number(a) - 6_000_000},"e":${Number(b) - 6_000_000},"f":{"data.t":{"first":0.30000000000000004`)],
];

for (const [name, edit] of EDITS) {
  test(`a tier that does not hold exactly the readings is not used: ${name}`, async () => {
    let siteDir = '';
    const before = await report(UTC_NIGHT, PLAIN, 'on', async (dir) => { siteDir = dir; });
    try {
      const file = path.join(siteDir, '.meridian', 'rollups', '1m', 'weather.ndjson');
      const text = fs.readFileSync(file, 'utf8');
      const edited = edit(text);
      assert.is.not(edited, text);
      assert.is(edited.length, text.length);
      fs.writeFileSync(file, edited);
      await withTestDaemon({ clock: new ManualClock(UTC_NIGHT.now), env: { TZ: 'UTC' }, siteDir, freshnessIntervalMs: 0 }, async (d) => {
        const after = await request(d.url, `/reports/night/${UTC_NIGHT.day}`);
        assert.is(after.status, 200, after.text);
        const [a, b] = [split(after.text), split(before)];
        assert.is(a.rest, b.rest);
        a.means.forEach((m, i) => assert.ok(Math.abs(m - b.means[i]!) <= 1e-9 * Math.abs(b.means[i]!), `mean ${i}: ${m} against ${b.means[i]}`));
      });
    } finally {
      removeDir(siteDir);
    }
  });
}

test.run();
