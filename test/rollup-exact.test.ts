import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from './helpers/clock.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { request } from './helpers/http.js';
import { prng } from './helpers/prng.js';
import { bruteField, tierFiles, type BruteField, type BruteReading } from './helpers/rollup-brute.js';
import { removeDir, tempDir } from './helpers/tmp.js';

// Rollups against a brute-force recomputation: 30 days of weather (two stretches of 15 days
// holding both America/New_York DST nights of 2026), noon rollovers of the day files, runs,
// clean restarts, readings carrying their own max age and a --max-age rule. min, max, count,
// first and last exact (as spelled), means within 1e-9 relative, gap_s exact. Then the tier
// files are rebuilt from the recorded files: the same bytes, and the same answers.

const ZONE = 'America/New_York';
const ENV = { TZ: ZONE };
const FLAGS = { maxAge: 'weather=120' };
const STRETCHES: [string, number][] = [['2026-03-01T00:00:00Z', 15], ['2026-10-25T00:00:00Z', 15]];
const AFTER = '2027-01-01T00:00:00.000Z';

interface Posted {
  body: string;
  at: number;
}

/** The fixture: event bodies in time order, and each field's readings as the brute force takes them. */
function fixture(): { events: Posted[]; fields: Map<string, BruteReading[]> } {
  const random = prng(26);
  const events: Posted[] = [];
  const fields = new Map<string, BruteReading[]>();
  const add = (name: string, reading: BruteReading) => fields.set(name, [...(fields.get(name) ?? []), reading]);
  for (const [startText, days] of STRETCHES) {
    const end = Date.parse(startText) + days * 86_400_000;
    for (let at = Date.parse(startText); at < end; at += 10_000 + Math.floor(random() * 290_000)) {
      const ts = new Date(at).toISOString();
      // weather: temp in cents spelled with two decimals (12.50), wind sometimes missing, an own max age now and then
      const temp = Math.floor(random() * 6000) - 2000;
      const tempText = (temp / 100).toFixed(2);
      const own = random() < 0.1;
      const holdMs = own ? 30_000 : 120_000;
      const wind = random() < 0.8 ? Math.floor(random() * 40) : undefined;
      // the same value spelled two ways (7 and 7.0): ties of min and max keep the earlier spelling
      const windText = random() < 0.5 ? `${wind}` : `${wind}.0`;
      const data = `{"temp":${tempText}${wind === undefined ? '' : `,"wind":{"speed":${windText}}`},"sky":"clear"}`;
      events.push({ at, body: `{"type":"weather","ts":"${ts}","data":${data}${own ? ',"max_age_s":30' : ''}}` });
      add('weather data.temp', { at, cents: temp, text: tempText, holdMs });
      if (wind !== undefined) add('weather data.wind.speed', { at, cents: wind * 100, text: windText, holdMs });
      if (random() < 0.3) {
        // power: the data is the number itself; no rule: held until the next reading
        const watts = Math.floor(random() * 100000);
        events.push({ at, body: `{"type":"power","ts":"${ts}","data":${watts}}` });
        add('power data', { at, cents: watts * 100, text: String(watts), holdMs: Infinity });
      }
    }
  }
  return { events, fields };
}

/** Post the fixture in batches, the daemon's clock at each batch's time; runs and restarts on the way. */
async function record(dir: string, clock: ManualClock, events: readonly Posted[]): Promise<TestDaemon> {
  let d = await startTestDaemon({ siteDir: dir, clock, env: ENV, flags: FLAGS });
  let batches = 0;
  for (let i = 0; i < events.length; i += 200) {
    const batch = events.slice(i, i + 200);
    clock.set(batch[0]!.at);
    const answer = await request(d.url, '/events', { body: batch.map((e) => e.body).join('\n'), headers: { 'content-type': 'application/x-ndjson' } });
    assert.is(answer.status, 200, answer.text);
    batches++;
    if (batches % 40 === 13) assert.is((await request(d.url, '/run/start', { body: {} })).status, 200);
    if (batches % 40 === 27) assert.is((await request(d.url, '/run/stop', { method: 'POST' })).status, 200);
    if (batches % 60 === 30) {
      await d.close();
      d = await startTestDaemon({ siteDir: dir, clock, env: ENV, flags: FLAGS });
    }
  }
  clock.set(AFTER);
  return d;
}

type Answer = { buckets: { start: string; end: string; fields: Record<string, BruteField | null> }[] };

/** Compare one tier's answer over [from, to) with the brute force, field by field. */
async function check(d: TestDaemon, fields: Map<string, BruteReading[]>, type: string, tier: string, from: string, to: string): Promise<string> {
  const answer = await request(d.url, `/history?type=${type}&step=${tier}&from=${from}&to=${to}`);
  assert.is(answer.status, 200, answer.text);
  const body = answer.json as Answer;
  const names = [...fields.keys()].filter((k) => k.startsWith(`${type} `));
  const expected = new Map<number, Map<string, BruteField>>();
  for (const key of names) {
    for (const [start, [end, summary]] of bruteField(fields.get(key)!, tier, ZONE)) {
      if (end <= Date.parse(from) || start >= Date.parse(to)) continue;
      expected.set(start, (expected.get(start) ?? new Map()).set(key.slice(type.length + 1), summary));
    }
  }
  assert.equal(body.buckets.map((b) => Date.parse(b.start)), [...expected.keys()].sort((a, b) => a - b), `${type} ${tier}: bucket starts`);
  // first/last/min/max as spelled: read from the text in answer order
  const spelled = [...answer.text.matchAll(/"first":([^,]+),"last":([^,]+),"min":([^,]+),"max":([^,]+),/g)].map((m) => m.slice(1, 5));
  let n = 0;
  for (const bucket of body.buckets) {
    const want = expected.get(Date.parse(bucket.start))!;
    for (const [name, got] of Object.entries(bucket.fields)) {
      const exp = want.get(name);
      if (exp === undefined) { assert.is(got, null, `${tier} ${bucket.start} ${name}`); continue; }
      const where = `${type} ${tier} ${bucket.start} ${name}`;
      assert.equal(spelled[n++], [exp.first, exp.last, exp.min, exp.max], where);
      assert.equal([got!.count, got!.gap_s], [exp.count, exp.gap_s], where);
      assert.ok(Math.abs(got!.mean - exp.mean) <= 1e-9 * Math.abs(exp.mean) + 1e-12, `${where} mean ${got!.mean} vs ${exp.mean}`);
      assert.ok(exp.twmean === null ? got!.twmean === null : Math.abs(got!.twmean! - exp.twmean) <= 1e-9 * Math.abs(exp.twmean) + 1e-12,
        `${where} twmean ${got!.twmean} vs ${exp.twmean}`);
    }
  }
  return answer.text;
}

const QUERIES: [string, string, string, string][] = [
  ['weather', 'night', '2026-02-20T00:00:00Z', '2026-11-20T00:00:00Z'],
  ['weather', '1h', '2026-02-20T00:00:00Z', '2026-11-20T00:00:00Z'],
  ['weather', '15m', '2026-02-20T00:00:00Z', '2026-11-20T00:00:00Z'],
  ['weather', '1m', '2026-03-07T00:00:00Z', '2026-03-10T00:00:00Z'],
  ['weather', '1m', '2026-10-31T00:00:00Z', '2026-11-03T00:00:00Z'],
  ['power', 'night', '2026-02-20T00:00:00Z', '2026-11-20T00:00:00Z'],
  ['power', '1h', '2026-02-20T00:00:00Z', '2026-11-20T00:00:00Z'],
  ['power', '1m', '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z'],
];

test('30 days with DST nights, noon rollovers, runs and restarts: every tier equals the brute force; a rebuild gives the same bytes', async () => {
  const dir = tempDir();
  const { events, fields } = fixture();
  const clock = new ManualClock(events[0]!.at);
  let d = await record(dir, clock, events);
  try {
    const nights = JSON.parse((await request(d.url, '/history?type=weather&step=night&from=2026-10-31T00:00:00Z&to=2026-11-03T00:00:00Z')).text) as Answer;
    // the night of the fall-back is 25 hours long (noon EDT to noon EST)
    assert.equal(nights.buckets.map((b) => [b.start, b.end]), [
      ['2026-10-30T16:00:00.000Z', '2026-10-31T16:00:00.000Z'], ['2026-10-31T16:00:00.000Z', '2026-11-01T17:00:00.000Z'],
      ['2026-11-01T17:00:00.000Z', '2026-11-02T17:00:00.000Z'], ['2026-11-02T17:00:00.000Z', '2026-11-03T17:00:00.000Z']]);
    const texts = [];
    for (const [type, tier, from, to] of QUERIES) texts.push(await check(d, fields, type, tier, from, to));
    await d.close();
    d = await startTestDaemon({ siteDir: dir, clock, env: ENV, flags: FLAGS });
    const live = tierFiles(dir);
    // weather and power in every tier; a stale or fresh turn of power's learned limit is recorded
    // (and rolled up, as every type is) only when its timer fires before the next post, which
    // depends on the machine's load: those files may be there or not
    const own = Object.keys(live).filter((name) => !/\/meridian\.(stale|fresh)\.ndjson$/.test(name)).sort();
    assert.equal(own, ['15m/power.ndjson', '15m/weather.ndjson', '1h/power.ndjson', '1h/weather.ndjson',
      '1m/power.ndjson', '1m/weather.ndjson', 'night/power.ndjson', 'night/weather.ndjson']);
    assert.equal((await request(d.url, '/rollups/rebuild', { method: 'POST' })).text, '{"rebuilt":true,"late":0}');
    assert.equal(tierFiles(dir), live, 'the rebuilt tier files are the bytes built live');
    const again = [];
    for (const [type, tier, from, to] of QUERIES) again.push((await request(d.url, `/history?type=${type}&step=${tier}&from=${from}&to=${to}`)).text);
    assert.equal(again, texts);
  } finally {
    await d.close();
    removeDir(dir);
  }
});

test.run();
