import { formatTs } from '../../lib/time.js';
import type { SinkStatus } from '../../lib/wire.js';
import { shownUrl } from './secrets.js';
import type { SinkSpec } from './sink.js';

// What /status says about a sink: ok, retrying or failing (also when its cursor cannot be
// written), or skipped (it delivers, but passed over something it could not read), its last success, how often it retried and how many
// records went to its dead-letter file.

/** The state of a sink as /status shows it. */
export type SinkState = SinkStatus['state'];

/** Counters and the current outage of one sink. */
export class SinkHealth {
  private lastSuccessMs: number | undefined;
  private failingSinceMs: number | undefined;
  private attempts = 0;
  retries = 0;
  deadLetters = 0;
  /** Records the peer acknowledged since start (not counting dead letters). */
  delivered = 0;
  lastError: string | undefined;
  /** Why the cursor's last write failed (undefined once one succeeds): a restart would send again what was sent since. */
  cursorError: string | undefined;
  /** Another daemon forwarding as this unit, as the sink said it (MQTT's clash_check), at ts; undefined: none seen. */
  private clashText: string | undefined;

  /** The sink saw another daemon with this unit id: true when this is news (to log). */
  clash(text: string, nowMs: number): boolean {
    const news = this.clashText?.startsWith(`${text} (`) !== true;
    this.clashText = `${text} (${formatTs(nowMs)})`;
    return news;
  }

  /** A delivery was acknowledged: any outage is over. Returns how long the outage lasted (ms), if there was one. */
  success(nowMs: number): number | undefined {
    const outage = this.failingSinceMs === undefined ? undefined : nowMs - this.failingSinceMs;
    this.lastSuccessMs = nowMs;
    this.failingSinceMs = undefined;
    this.attempts = 0;
    return outage;
  }

  /** A delivery failed and will be retried; returns the number of the coming attempt (1, 2, ...). */
  failure(nowMs: number, reason: string): number {
    this.failingSinceMs ??= nowMs;
    this.lastError = reason;
    this.retries++;
    return ++this.attempts;
  }

  /** Whether the last delivery failed (the sink is down, or refusing everything that may pass later). */
  get down(): boolean {
    return this.failingSinceMs !== undefined;
  }

  /** ok; retrying while an outage is younger than `failingAfterMs`; failing after that. */
  state(nowMs: number, failingAfterMs: number): 'ok' | 'retrying' | 'failing' {
    if (this.failingSinceMs === undefined) return 'ok';
    return nowMs - this.failingSinceMs >= failingAfterMs ? 'failing' : 'retrying';
  }

  /** The last acknowledged delivery (ts format), or null. */
  lastSuccess(): string | null {
    return this.lastSuccessMs === undefined ? null : formatTs(this.lastSuccessMs);
  }

  /** The sink's line in /status, given its lag, the ts of the oldest record not yet acknowledged, its ephemeral counts and what it passed over. */
  status(spec: SinkSpec, nowMs: number, lagEvents: number, oldestPendingTs: string | undefined, ephemeral: { sent: number; dropped: number },
    skipped: readonly string[]): SinkStatus {
    const pendingMs = oldestPendingTs === undefined ? NaN : Date.parse(oldestPendingTs);
    const delivery = this.state(nowMs, spec.failingAfterMs);
    // deliveries succeed but their cursor cannot be written: failing, with the reason
    const unsaved = delivery === 'ok' && this.cursorError !== undefined;
    const state = unsaved ? 'failing' : delivery === 'ok' && skipped.length > 0 ? 'skipped' : delivery;
    return {
      name: spec.name, kind: spec.kind, url: shownUrl(spec), state,
      lag_events: lagEvents,
      lag_seconds: lagEvents === 0 || Number.isNaN(pendingMs) ? 0 : Math.max(0, Math.round((nowMs - pendingMs) / 100) / 10),
      last_success: this.lastSuccess(), retries: this.retries, dead_letters: this.deadLetters, last_error: (unsaved ? this.cursorError : this.lastError) ?? null,
      delivered: this.delivered, ephemeral_sent: ephemeral.sent, ephemeral_dropped: ephemeral.dropped, skipped: [...skipped],
      ...(this.clashText === undefined ? {} : { clash: this.clashText }),
    };
  }
}
