import { Counter, Gauge, type Registry } from 'prom-client';
import type { SinkStatus } from '../../lib/wire.js';

// The forwarding sinks' metrics (docs/operations.md "Metrics"), read from their /status lines
// at each scrape, labelled by sink name and kind. Without sinks the families have no series.

type Label = 'sink' | 'kind';
const LABELS: Label[] = ['sink', 'kind'];
const STATES: SinkStatus['state'][] = ['ok', 'retrying', 'failing', 'skipped'];

// a gauge or counter per number of the status line: name, help, the number
const NUMBERS: [name: string, help: string, read: (s: SinkStatus) => number][] = [
  ['meridian_sink_lag_events', 'Events recorded but not yet acknowledged by the sink (seqs between its cursor and the newest line, per stream).', (s) => s.lag_events],
  ['meridian_sink_lag_seconds', 'Age of the oldest event the sink has not acknowledged (0 when caught up).', (s) => s.lag_seconds],
];
const TOTALS: [name: string, help: string, read: (s: SinkStatus) => number][] = [
  ['meridian_sink_delivered_total', 'Events the sink acknowledged since the daemon started (dead letters not counted).', (s) => s.delivered],
  ['meridian_sink_retries_total', 'Failed deliveries retried since the daemon started.', (s) => s.retries],
  ['meridian_sink_dead_letters_total', 'Records in the sink\'s dead-letter file (refused for good).', (s) => s.dead_letters],
  ['meridian_sink_ephemeral_sent_total', 'Ephemeral events the sink acknowledged (sent live, best-effort) since start.', (s) => s.ephemeral_sent],
  ['meridian_sink_ephemeral_dropped_total', 'Ephemeral events dropped since start: sink down, queue full, or their one attempt failed.', (s) => s.ephemeral_dropped],
];

/** Register the sink metrics on `registry`; `sinks()` gives the sinks' /status lines as of now. */
export function registerSinkMetrics(registry: Registry, status: () => SinkStatus[]): void {
  const registers = [registry];
  // a scrape collects every family in one turn: read the sinks once for all of them
  let lines: SinkStatus[] | undefined;
  const sinks = () => {
    if (!lines) {
      lines = status();
      queueMicrotask(() => { lines = undefined; });
    }
    return lines;
  };
  for (const [name, help, read] of NUMBERS) {
    new Gauge<Label>({ name, help, labelNames: LABELS, registers, collect() {
      this.reset();
      for (const s of sinks()) this.labels(s.name, s.kind).set(read(s));
    } });
  }
  for (const [name, help, read] of TOTALS) {
    // the totals are kept by the forwarders: a scrape copies them
    new Counter<Label>({ name, help, labelNames: LABELS, registers, collect() {
      this.reset();
      for (const s of sinks()) this.labels(s.name, s.kind).inc(read(s));
    } });
  }
  new Gauge<Label | 'state'>({
    name: 'meridian_sink_state', help: 'The sink\'s state: 1 for the one it is in (ok, retrying, failing, skipped), 0 for the others.',
    labelNames: [...LABELS, 'state'], registers,
    collect() {
      this.reset();
      for (const s of sinks()) for (const state of STATES) this.labels(s.name, s.kind, state).set(s.state === state ? 1 : 0);
    },
  });
}
