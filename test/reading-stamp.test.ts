import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseEventBody } from '../daemon/http/validate.js';
import { FreshnessJudge } from '../daemon/freshness/judge.js';
import { CurrentView, Reading } from '../daemon/storage/current-view.js';

// A reading carries the ts and its own limit as the store knew them when it stamped it
// (issue 23), so the judge never parses them back from the line; only a reading recovered at
// start-up (nothing carried) is read from its line.

const T0 = Date.parse('2026-03-18T00:00:00.000Z');

// [name, body, tsMs, maxAgeS]
const rows: Array<[string, string, number | undefined, number | null | undefined]> = [
  ['no ts, no limit', '{"type":"w","data":1}', undefined, null],
  ['caller ts with an offset', '{"type":"w","data":1,"ts":"2026-03-18T01:00:00+01:00"}', T0, null],
  ['top-level max_age_s', '{"type":"w","data":1,"max_age_s":90}', undefined, 90],
  ['meta.max_age_s as spelled', '{"type":"w","data":1,"meta":{"max_age_s":1.5e1}}', undefined, 15],
  ['top-level wins over meta', '{"type":"w","data":1,"max_age_s":30,"meta":{"max_age_s":600}}', undefined, 30],
  ['meta.max_age_s null is no limit', '{"type":"w","data":1,"meta":{"max_age_s":null}}', undefined, null],
  ['max_age_s inside data is not a limit', '{"type":"w","data":{"max_age_s":5}}', undefined, null],
  ['a daemon type leaves it to the judge', '{"type":"meridian.x","data":1,"meta":{"max_age_s":5}}', undefined, undefined],
];

for (const [name, body, tsMs, maxAgeS] of rows) {
  test(`validation reads what the stamp carries: ${name}`, () => {
    const event = parseEventBody(body);
    assert.equal([event.tsMs, event.maxAgeS], [tsMs, maxAgeS]);
  });
}

/** A view holding `reading`, judged at `now` with no rules. */
function judgeOne(reading: Reading, now: number) {
  const view = new CurrentView();
  view.set(reading);
  return new FreshnessJudge(view, []).judge(reading.type, now)!;
}

test('the judge takes the carried ts and limit, not the line (the line here says otherwise)', () => {
  const line = '{"seq":1,"ts":"2000-01-01T00:00:00.000Z","type":"w","data":1,"meta":{"max_age_s":600}}';
  const judged = judgeOne(new Reading('w', 1, line, true, NaN, T0, 30), T0 + 45_000);
  assert.equal([judged.tsMs, judged.ageMs, judged.maxAgeS, judged.freshness], [T0, 45_000, 30, { age_s: 45, max_age_s: 30, max_age_from: 'reading', stale: true }]);
});

test('a reading recovered at start-up (nothing carried) is read from its line', () => {
  const line = '{"seq":1,"ts":"2026-03-18T00:00:00.000Z","type":"w","data":1,"meta":{"max_age_s":600}}';
  const judged = judgeOne(new Reading('w', 1, line), T0 + 45_000);
  assert.equal([judged.tsMs, judged.ageMs, judged.maxAgeS, judged.freshness], [T0, 45_000, 600, { age_s: 45, max_age_s: 600, max_age_from: 'reading', stale: false }]);
});

test.run();
