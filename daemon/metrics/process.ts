import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';

// Process metrics (CPU, memory, heap, handles, file descriptors, Node version) from
// prom-client's own default collectors, registered on the daemon's registry. Two of them
// start something that cannot be stopped (the event-loop delay histogram stays enabled, the
// GC observer stays connected): a process running several daemons (tests, embedding) would
// collect one more of each per daemon. So those two are left out; the event-loop delay is
// measured here with a histogram that close() disables.

const require = createRequire(import.meta.url);
const UNSTOPPABLE = new Set(['eventLoopLag', 'gc']);
const EVENT_LOOP_RESOLUTION_MS = 10;
// the gauges of prom-client's eventLoopLag collector: name suffix, help, histogram reading
const LAG_GAUGES: [suffix: string, help: string, read: (h: ReturnType<typeof monitorEventLoopDelay>) => number][] = [
  ['min', 'The minimum recorded event loop delay.', (h) => h.min],
  ['max', 'The maximum recorded event loop delay.', (h) => h.max],
  ['mean', 'The mean of the recorded event loop delays.', (h) => h.mean],
  ['stddev', 'The standard deviation of the recorded event loop delays.', (h) => h.stddev],
  ['p50', 'The 50th percentile of the recorded event loop delays.', (h) => h.percentile(50)],
  ['p90', 'The 90th percentile of the recorded event loop delays.', (h) => h.percentile(90)],
  ['p99', 'The 99th percentile of the recorded event loop delays.', (h) => h.percentile(99)],
];

type Collector = (registry: Registry, config: object) => void;

/** Register the process metrics on `registry`; the returned function stops what they started. */
export function registerProcessMetrics(registry: Registry): () => void {
  for (const name of collectDefaultMetrics.metricsList) {
    if (UNSTOPPABLE.has(name)) continue;
    (require(`prom-client/lib/metrics/${name}.js`) as Collector)(registry, {});
  }
  const delay = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  delay.enable();
  // one collect sets them all (the first gauge is collected first), then the histogram
  // restarts, as in prom-client's own collector
  const gauges: Gauge[] = [];
  const collect = () => {
    if (delay.count === 0) return;
    LAG_GAUGES.forEach(([, , read], i) => gauges[i]!.set(read(delay) / 1e9));
    delay.reset();
  };
  LAG_GAUGES.forEach(([suffix, help], i) => gauges.push(new Gauge({
    name: `nodejs_eventloop_lag_${suffix}_seconds`, help, registers: [registry], ...(i === 0 ? { collect } : {}),
  })));
  return () => delay.disable();
}
