import type { TelemetryClient } from '../client/client.js';
import { TelemetryClientError } from '../client/errors.js';
import type { Envelope, RollupAnswer } from '../lib/wire.js';
import { numericFields } from './trend.js';

// The chart view's data (docs/console.md "Chart"): the selected type's rollup buckets over the
// span asked for (GET /history?step=auto, width = the chart's columns: the daemon picks the
// step), each numeric field's bucket means, extended live: a new reading is folded into the
// bucket of the step it falls in, a new bucket started past the last one.

/** The spans the keys pick: 1 h, 6 h, 24 h, 7 d. */
export const CHART_SPANS = { '1h': 3_600_000, '6h': 6 * 3_600_000, '24h': 24 * 3_600_000, '7d': 7 * 24 * 3_600_000 } as const;
export type ChartSpan = keyof typeof CHART_SPANS;

/** Bucket lengths of the steps (a `night` bucket is taken as 24 h for live readings). */
export const STEP_MS: Readonly<Record<RollupAnswer['step'], number>> = { '1m': 60_000, '15m': 900_000, '1h': 3_600_000, night: 86_400_000 };

/** One field's buckets: start (ms), the mean and count of the values (a mean, not a sum: a sum of values near 1e308 overflows). */
export interface ChartBucket {
  s: number;
  mean: number;
  count: number;
}

/** What the chart shows: the type, span, step and each field's buckets (field names as `data.x`). */
export interface ChartData {
  type: string;
  span: ChartSpan;
  /** The daemon's step; undefined until the answer came. */
  step: RollupAnswer['step'] | undefined;
  fields: Map<string, ChartBucket[]>;
  loading: boolean;
  /** Why there is no chart (the daemon keeps no rollups, it went away). */
  problem: string | undefined;
}

/** Holds the chart of one type and span; reads it in the background, extends it with live readings. */
export class ChartKeeper {
  private data: ChartData | undefined;
  /** The columns the shown chart was asked for. */
  private width = 0;

  /** `now`: the daemon's clock; `changed`: called once an answer came. */
  constructor(private readonly client: TelemetryClient, private readonly now: () => number, private readonly changed: () => void) {}

  /** The chart to draw (undefined while none is asked for). */
  get current(): ChartData | undefined {
    return this.data;
  }

  /** Show `type` over `span` at `width` columns (read again when any of them changes); undefined: no chart. */
  select(type: string | undefined, span: ChartSpan, width: number): void {
    if (type === undefined) {
      this.data = undefined;
      return;
    }
    if (this.data?.type === type && this.data.span === span && this.width === width) return;
    this.width = width;
    const data: ChartData = { type, span, step: undefined, fields: new Map(), loading: true, problem: undefined };
    this.data = data;
    void this.read(data, width);
  }

  /** New readings (of any type: the shown one's are folded in). */
  add(envelopes: readonly Envelope[]): void {
    const data = this.data;
    if (!data?.step || data.loading) return;
    for (const e of envelopes) {
      if (e.type !== data.type) continue;
      const ms = Date.parse(e.ts);
      if (!Number.isFinite(ms)) continue;
      for (const [name, value] of numericFields(e.data)) foldLive(data, `data.${name}`, ms, value);
    }
  }

  /** Forget the chart (the view closed or the console quits). */
  stop(): void {
    this.data = undefined;
  }

  private async read(data: ChartData, width: number): Promise<void> {
    try {
      const answer = await this.client.rollup(data.type, { step: 'auto', width, from: new Date(this.now() - CHART_SPANS[data.span]) });
      if (this.data !== data) return;
      data.step = answer.step;
      for (const bucket of answer.buckets) {
        const s = Date.parse(bucket.start);
        for (const [name, field] of Object.entries(bucket.fields)) {
          if (!field || !Number.isFinite(field.mean)) continue;
          const list = data.fields.get(name) ?? [];
          list.push({ s, mean: field.mean, count: field.count });
          data.fields.set(name, list);
        }
      }
    } catch (error) {
      data.problem = error instanceof TelemetryClientError && error.code === 'ROLLUPS_OFF'
        ? 'the daemon keeps no rollups (--rollups off): no chart'
        : `no chart: ${(error as Error).message}`;
    } finally {
      data.loading = false;
      if (this.data === data) this.changed();
    }
  }
}

/** Fold one live value into its field's bucket of the chart's step. */
function foldLive(data: ChartData, name: string, ms: number, value: number): void {
  const length = STEP_MS[data.step!];
  const s = Math.floor(ms / length) * length;
  const list = data.fields.get(name) ?? [];
  data.fields.set(name, list);
  const last = list.at(-1);
  if (last && last.s === s) {
    last.count++;
    last.mean = last.mean - last.mean / last.count + value / last.count;
  } else if (!last || s > last.s) list.push({ s, mean: value, count: 1 });
}
