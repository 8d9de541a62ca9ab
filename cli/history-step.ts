import { forEachItem, forEachMember, spanString } from '../lib/json-text.js';
import { textOption, UsageError, type ParsedOptions } from './options.js';
import type { RollupOptions } from '../client/rollup.js';

// `telemetry history TYPE --step ...`: a type's rollup buckets (GET /history?step=). Rows are
// made from the answer's text, so that first/last/min/max are printed as they were recorded.

const STEPS = ['auto', '1m', '15m', '1h', 'night'];
const STATS = ['count', 'min', 'mean', 'twmean', 'max', 'gap_s'] as const;

/** One row of the table: a bucket's start and one field's summary, each value as the daemon spelled it. */
export interface StepRow {
  start: string;
  field: string;
  values: Record<(typeof STATS)[number], string>;
}

/** The rollup options --step, --width and --fields give (with the times already read). */
export function stepOptions(opts: ParsedOptions, step: string, from: string | undefined, to: string | undefined): RollupOptions {
  if (!STEPS.includes(step)) throw new UsageError(`--step must be auto, 1m, 15m, 1h or night; got ${JSON.stringify(step)}`);
  const widthText = textOption(opts, 'width');
  if (widthText !== undefined && step !== 'auto') throw new UsageError('--width is taken only with --step auto');
  const width = widthText === undefined ? undefined : Number(widthText);
  if (width !== undefined && !(/^\d+$/.test(widthText!) && width >= 1 && width <= 10_000)) {
    throw new UsageError(`--width must be a whole number from 1 to 10000; got ${JSON.stringify(widthText)}`);
  }
  const fields = textOption(opts, 'fields')?.split(',');
  return { step: step as RollupOptions['step'], width, fields, from, to };
}

/** The rows of a rollup answer's text: one per bucket and field with a reading. */
export function stepRows(text: string): StepRow[] {
  const rows: StepRow[] = [];
  forEachMember(text, (key, span) => {
    if (key !== 'buckets') return;
    forEachItem(text.slice(span.start, span.end), (item) => {
      const bucket = text.slice(span.start + item.start, span.start + item.end);
      let start = '';
      forEachMember(bucket, (k, s) => {
        if (k === 'start') start = spanString(bucket, s) ?? '';
        if (k !== 'fields') return;
        const fields = bucket.slice(s.start, s.end);
        forEachMember(fields, (field, fs) => {
          const summary = fields.slice(fs.start, fs.end);
          if (summary === 'null') return;
          const values = {} as StepRow['values'];
          forEachMember(summary, (stat, vs) => {
            if ((STATS as readonly string[]).includes(stat)) values[stat as (typeof STATS)[number]] = summary.slice(vs.start, vs.end);
          });
          rows.push({ start, field, values });
        });
      });
    });
  });
  return rows;
}
