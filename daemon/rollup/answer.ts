import { formatTs } from '../../lib/time.js';
import type { FieldRecord } from './bucket.js';
import type { BucketRecord } from './series.js';
import type { TierName } from './tiers.js';

// The answer of GET /history?step= as JSON text (docs/http-api.md): first, last, min and max
// are the recorded numbers' own spelling (Exact), the rest computed.

/** What an answer is made of. */
export interface RollupAnswer {
  type: string;
  step: TierName;
  from: number;
  to: number;
  /** The fields asked for; undefined: every field the buckets hold, in name order. */
  fields: readonly string[] | undefined;
  buckets: readonly BucketRecord[];
}

/** The answer's JSON text; a bucket holding none of the fields is left out. */
export function answerText(answer: RollupAnswer): string {
  const fields = answer.fields ?? fieldsOf(answer.buckets);
  const buckets: string[] = [];
  for (const bucket of answer.buckets) {
    if (!fields.some((name) => Object.hasOwn(bucket.f, name))) continue;
    const parts = fields.map((name) => `${JSON.stringify(name)}:${Object.hasOwn(bucket.f, name) ? fieldText(bucket.f[name]!) : 'null'}`);
    buckets.push(`{"start":"${formatTs(bucket.s)}","end":"${formatTs(bucket.e)}","fields":{${parts.join(',')}}}`);
  }
  return `{"type":${JSON.stringify(answer.type)},"step":"${answer.step}","from":"${formatTs(answer.from)}","to":"${formatTs(answer.to)}",` +
    `"fields":${JSON.stringify(fields)},"buckets":[${buckets.join(',')}]}`;
}

function fieldText([first, last, min, max, count, mean, twmean, gap]: FieldRecord): string {
  return `{"first":${first},"last":${last},"min":${min},"max":${max},"count":${count},"mean":${JSON.stringify(mean)},` +
    `"twmean":${JSON.stringify(twmean)},"gap_s":${JSON.stringify(gap)}}`;
}

function fieldsOf(buckets: readonly BucketRecord[]): string[] {
  const names = new Set<string>();
  for (const bucket of buckets) for (const name of Object.keys(bucket.f)) names.add(name);
  return [...names].sort();
}
