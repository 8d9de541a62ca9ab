import type { Series } from '../chart/series.js';
import type { RollupAnswer } from '../lib/wire.js';
import { UsageError } from './options.js';

// What `telemetry plot` draws: the TYPE.FIELD arguments read once, and each field's series
// (the mean of each rollup bucket with a reading, at the bucket's start).

/** One plotted field: its type and its path in the envelope (`data.temp_c`). */
export interface PlotSpec {
  type: string;
  field: string;
}

/**
 * TYPE.FIELD (or TYPE:FIELD for a type with a dot, such as `meridian.stale:age_s`): the type
 * is before the first `.` (or the `:`); the field is a path in the reading's data (`data.` is
 * added when not given).
 */
export function plotSpec(text: string): PlotSpec {
  const colon = text.indexOf(':');
  const at = colon >= 0 ? colon : text.indexOf('.');
  const type = at > 0 ? text.slice(0, at) : '';
  const path = at > 0 ? text.slice(at + 1) : '';
  if (type === '' || path === '' || path.startsWith('.') || path.endsWith('.')) {
    throw new UsageError(`each series must be TYPE.FIELD (or TYPE:FIELD for a type with a dot), such as weather.temp_c; got ${JSON.stringify(text)}`);
  }
  return { type, field: path.startsWith('data.') ? path : `data.${path}` };
}

/** The specs grouped by type, in order of first mention (one rollup request per type). */
export function byType(specs: readonly PlotSpec[]): Map<string, string[]> {
  const types = new Map<string, string[]>();
  for (const { type, field } of specs) {
    const fields = types.get(type) ?? [];
    if (!fields.includes(field)) fields.push(field);
    types.set(type, fields);
  }
  return types;
}

const STEP_MS: Readonly<Record<string, number>> = { '1m': 60_000, '15m': 900_000, '1h': 3_600_000, night: 25 * 3_600_000 };

/** A field's series in a rollup answer: [bucket start, mean] for each bucket with a reading. */
export function seriesOf(answer: RollupAnswer, field: string): Series {
  const points: [number, number][] = [];
  for (const bucket of answer.buckets) {
    const f = bucket.fields[field];
    // a mean past a double's range is null in the answer: no point to draw
    if (f && f.mean !== null && Number.isFinite(f.mean)) points.push([Date.parse(bucket.start), f.mean]);
  }
  // a bucket missing between two: nothing was read then, the line is not drawn across it
  return { name: `${answer.type} ${field}`, points, breakMs: 1.5 * (STEP_MS[answer.step] ?? Infinity) };
}
