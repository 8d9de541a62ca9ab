import type { FieldRecord } from './bucket.js';
import type { BucketRecord } from './series.js';

// A bucket as text: each field's summary already in the answer's form, so that a query builds
// its answer by concatenation, without parsing or writing numbers again. The tier files hold
// buckets in this form: `{"s":<start ms>,"e":<end ms>,"f":{"data.a":{"first":1.50,...},...}}`.

/** A bucket with each field's answer text by its name as JSON spells it (escaped, no quotes). */
export interface BucketText {
  s: number;
  e: number;
  fields: Map<string, string>;
  /** Its text in the last answer it was part of, and for which fields (answer.ts; kept with the bucket in the tier cache). */
  answered?: { keys: string; text: string };
}

const NUM = '-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?';
const LINE = /^\{"s":(-?\d{1,16}),"e":(-?\d{1,16}),"f":\{(.*)\}\}$/;
const FIELD = new RegExp(`"((?:[^"\\\\\\u0000-\\u001f]|\\\\.)*)":(\\{"first":${NUM},"last":${NUM},"min":${NUM},"max":${NUM},"count":[1-9]\\d{0,15},` +
  `"mean":(?:${NUM}|null),"twmean":(?:${NUM}|null),"gap_s":${NUM}\\})(?:,|$)`, 'y');

/** A field's summary as the answer writes it (first..max as recorded; a mean past a double's range as null). */
export function fieldText([first, last, min, max, count, mean, twmean, gap]: FieldRecord): string {
  return `{"first":${first},"last":${last},"min":${min},"max":${max},"count":${count},"mean":${num(mean)},"twmean":${num(twmean)},"gap_s":${num(gap)}}`;
}

/** An in-memory bucket as text. */
export function bucketText(record: BucketRecord): BucketText {
  const fields = new Map<string, string>();
  for (const [name, field] of Object.entries(record.f)) fields.set(JSON.stringify(name).slice(1, -1), fieldText(field));
  return { s: record.s, e: record.e, fields };
}

/** The line a closed bucket is stored as (fields in the order they were first read in the bucket). */
export function bucketLine(record: BucketRecord): string {
  const parts: string[] = [];
  for (const [name, field] of Object.entries(record.f)) parts.push(`${JSON.stringify(name)}:${fieldText(field)}`);
  return `{"s":${record.s},"e":${record.e},"f":{${parts.join(',')}}}`;
}

/** A stored line as a bucket; undefined unless every part of it is what the daemon writes (a damaged or tampered line is left out). */
export function parseBucketLine(line: string): BucketText | undefined {
  const match = LINE.exec(line);
  if (!match) return undefined;
  const inner = match[3]!;
  const fields = new Map<string, string>();
  FIELD.lastIndex = 0;
  while (FIELD.lastIndex < inner.length) {
    const field = FIELD.exec(inner);
    if (!field) return undefined;
    fields.set(field[1]!, field[2]!);
  }
  return fields.size > 0 ? { s: Number(match[1]), e: Number(match[2]), fields } : undefined;
}

/** A number of a field's text (`count`, `gap_s`), NaN when absent. */
export function statOf(fieldJson: string, stat: 'count' | 'gap_s'): number {
  const match = new RegExp(`"${stat}":(${NUM})`).exec(fieldJson);
  return match ? Number(match[1]) : NaN;
}

function num(x: number | null): string {
  return x !== null && Number.isFinite(x) ? String(x) : 'null';
}
