import type { TelemetryClient } from '../client/client.js';
import type { Envelope } from '../lib/wire.js';
import { emptyTrend, extendTrend, TREND_WINDOW_MS, type Trend } from './trend.js';

// The trend of the selected type, kept up to date: read from GET /history (the last hour)
// when the selection changes, extended with each new reading as the watch reports it.

/** Holds one trend (the selected type's) and reads its hour of history in the background. */
export class TrendKeeper {
  private trend: Trend | undefined;
  private readonly client: TelemetryClient;
  private readonly now: () => number;
  private readonly changed: () => void;

  /** `now` is the daemon's clock; `changed` is called when the history has been read in. */
  constructor(client: TelemetryClient, now: () => number, changed: () => void) {
    this.client = client;
    this.now = now;
    this.changed = changed;
  }

  /** The trend to draw (undefined before anything is selected). */
  get current(): Trend | undefined {
    return this.trend;
  }

  /** Follow `type` (the selected row); a new type starts a new trend and reads its history. */
  select(type: string | undefined): void {
    if (type === this.trend?.type) return;
    this.trend = type === undefined ? undefined : emptyTrend(type);
    if (this.trend) void this.seed(this.trend);
  }

  /** New readings (of any type: only the selected one's are kept). */
  add(envelopes: readonly Envelope[]): void {
    if (this.trend) extendTrend(this.trend, envelopes, this.now());
  }

  /** Stop reading (the console quits, or the selection moved on): a trend no longer current is left as it is. */
  stop(): void {
    this.trend = undefined;
  }

  private async seed(trend: Trend): Promise<void> {
    try {
      const from = new Date(this.now() - TREND_WINDOW_MS);
      for await (const page of this.client.history({ types: [trend.type], from, limit: 5000 })) {
        if (this.trend !== trend) return;
        extendTrend(trend, page.events, this.now());
      }
    } catch {
      // an older daemon without /history, or the daemon went away: the trend grows from live readings
    } finally {
      trend.loading = false;
      if (this.trend === trend) this.changed();
    }
  }
}
