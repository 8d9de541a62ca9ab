import type { CurrentQuery } from '../http/current-query.js';
import type { FreshnessJudge, JudgedType } from './judge.js';

// The GET /current answer with freshness: `{"current": {...}, "freshness": {...}}`, both
// sorted by type, `current` exactly as without freshness (old clients read only that key).

/** The answer body for `query` at `now`; `viewBody` is the view's cached `{"current":{...}}`. */
export function currentBody(viewBody: () => Buffer, judge: FreshnessJudge, now: number, query: CurrentQuery): Buffer {
  if (query.types === undefined && query.stale === undefined) {
    // the whole view: its cached bytes, then the freshness of every type
    const body = viewBody();
    const tail = `,"freshness":{${freshnessMembers(judge.all(now))}}}`;
    return Buffer.concat([body.subarray(0, body.length - 1), Buffer.from(tail, 'utf8')]);
  }
  const judged = query.types === undefined ? judge.all(now)
    : [...query.types].sort().flatMap((type) => judge.judge(type, now) ?? []);
  const chosen = query.stale === undefined ? judged : judged.filter((j) => j.freshness.stale === query.stale);
  const current = chosen.flatMap((j) => (j.reading ? [`${JSON.stringify(j.type)}:${j.reading.json}`] : [])).join(',');
  const freshness = query.freshness ? `,"freshness":{${freshnessMembers(chosen)}}` : '';
  return Buffer.from(`{"current":{${current}}${freshness}}`, 'utf8');
}

function freshnessMembers(judged: readonly JudgedType[]): string {
  return judged.map((j) => `${JSON.stringify(j.type)}:${JSON.stringify(j.freshness)}`).join(',');
}
