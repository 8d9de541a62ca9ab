import type { CurrentQuery } from './current-query.js';
import { ChunkedText } from '../storage/chunked-text.js';
import type { FreshnessJudge, JudgedType } from '../freshness/judge.js';

// The GET /current answer when it is not the view's cached body: filtered (`?type=`,
// `?stale=`) and/or with freshness (`{"current": {...}, "freshness": {...}}`, both sorted by
// type, `current` exactly as without freshness).
// Built as chunks (see CurrentView.chunks): never one string of the whole answer.

/** The answer body for `query` at `now`, as UTF-8 chunks; `viewBody` is the view's cached `{"current":{...}}`. */
export function currentBody(viewBody: readonly Buffer[], chunkChars: number, judge: FreshnessJudge, now: number, query: CurrentQuery): Buffer[] {
  if (query.types === undefined && query.stale === undefined && query.freshness) {
    // the whole view: its cached bytes without the last `}`, then the freshness of every type
    const members = judge.freshnessMembers(now);
    const last = viewBody.at(-1)!;
    const head = [...viewBody.slice(0, -1), last.subarray(0, last.length - 1)];
    let chars = 0;
    for (const member of members) chars += member.length + 1;
    if (chars < chunkChars) return [...head, Buffer.from(`,"freshness":{${members.join(',')}}}`, 'utf8')];
    const tail = new ChunkedText(chunkChars);
    tail.add(',"freshness":{');
    members.forEach((member, i) => tail.add(i === 0 ? member : `,${member}`));
    tail.add('}}');
    return [...head, ...tail.finish()];
  }
  const judged = query.types === undefined ? judge.all(now)
    : [...query.types].sort().flatMap((type) => judge.judge(type, now) ?? []);
  const chosen = query.stale === undefined ? judged : judged.filter((j) => j.freshness.stale === query.stale);
  const text = new ChunkedText(chunkChars);
  text.add('{"current":{');
  let first = true;
  for (const j of chosen) {
    if (!j.reading) continue;
    text.add(`${first ? '' : ','}${JSON.stringify(j.type)}:${j.reading.json}`);
    first = false;
  }
  text.add('}');
  if (query.freshness) {
    text.add(',"freshness":{');
    addFreshness(text, chosen);
    text.add('}');
  }
  text.add('}');
  return text.finish();
}

function addFreshness(text: ChunkedText, judged: readonly JudgedType[]): void {
  judged.forEach((j, i) => text.add(`${i === 0 ? '' : ','}${JSON.stringify(j.type)}:${JSON.stringify(j.freshness)}`));
}
