import { formatTs } from '../../lib/time.js';
import type { BucketText } from './bucket-text.js';
import type { TierName } from './tiers.js';

// The answer of GET /history?step= as JSON text (docs/http-api.md): each bucket's fields are
// their stored text (first, last, min and max the recorded numbers' own spelling), put together
// without parsing.

/** What an answer is made of. */
export interface RollupAnswer {
  type: string;
  step: TierName;
  from: number;
  to: number;
  /** The fields asked for; undefined: every field the buckets hold, in name order. */
  fields: readonly string[] | undefined;
  buckets: readonly BucketText[];
}

/** The answer's JSON text; a bucket holding none of the fields is left out. */
export function answerText(answer: RollupAnswer): string {
  const names = answer.fields ?? fieldsOf(answer.buckets);
  const keys = names.map((name) => JSON.stringify(name).slice(1, -1));
  const asked = keys.join('\n');
  const buckets: string[] = [];
  for (const bucket of answer.buckets) {
    // a bucket kept by the tier cache answers the same fields again with the same text
    if (bucket.answered?.keys !== asked) bucket.answered = { keys: asked, text: bucketAnswer(bucket, keys) };
    if (bucket.answered.text !== '') buckets.push(bucket.answered.text);
  }
  return `{"type":${JSON.stringify(answer.type)},"step":"${answer.step}","from":"${formatTs(answer.from)}","to":"${formatTs(answer.to)}",` +
    `"fields":${JSON.stringify(names)},"buckets":[${buckets.join(',')}]}`;
}

/** A bucket's text in the answer for the fields `keys` (JSON-escaped); '' when it holds none of them. */
function bucketAnswer(bucket: BucketText, keys: readonly string[]): string {
  let any = false;
  let text = `{"start":"${formatTs(bucket.s)}","end":"${formatTs(bucket.e)}","fields":{`;
  for (let i = 0; i < keys.length; i++) {
    const field = bucket.fields.get(keys[i]!);
    any ||= field !== undefined;
    text += `${i === 0 ? '' : ','}"${keys[i]}":${field ?? 'null'}`;
  }
  return any ? `${text}}}` : '';
}

function fieldsOf(buckets: readonly BucketText[]): string[] {
  const keys = new Set<string>();
  for (const bucket of buckets) for (const key of bucket.fields.keys()) keys.add(key);
  return [...keys].map((key) => JSON.parse(`"${key}"`) as string).sort();
}
