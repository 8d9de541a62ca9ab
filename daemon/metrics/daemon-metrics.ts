import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ERROR_CATALOGUE, type ErrorCode } from '../../lib/errors.js';
import type { Clock } from '../../lib/time.js';
import type { SinkStatus } from '../../lib/wire.js';
import type { StorageObserver } from '../storage/observer.js';
import type { RecordedEvent, TelemetryStore } from '../storage/store.js';
import { registerProcessMetrics } from './process.js';
import { registerReadingAges } from './reading-ages.js';
import { registerSinkMetrics } from './sink-metrics.js';

// The daemon's metrics (GET /metrics, docs/operations.md "Metrics"), on a registry of its
// own: prom-client's global registry is module state shared by every daemon of a process.

/** The default cap on types with a reading-age series. */
export const DEFAULT_MAX_AGE_TYPES = 1000;
/** The route label of a request no route matched (404, 405). */
export const UNMATCHED_ROUTE = 'unmatched';

const SYNC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const REQUEST_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** What the metrics are built from. */
export interface MetricsOptions {
  clock: Clock;
  version: string;
  /** How many types get a meridian_reading_age_seconds series (default 1000, by type name). */
  maxAgeTypes?: number;
  /** How many types are stale now, by the daemon's `--max-age` (meridian_current_stale_types; not exported without it). */
  staleTypes?: () => number;
}

const SITE_PERMANENT = 'site permanent';
const SITE_EPHEMERAL = 'site ephemeral';
const RUN_PERMANENT = 'run permanent';
const RUN_EPHEMERAL = 'run ephemeral';

/** The daemon's registry and the calls that feed it. */
export class DaemonMetrics {
  /** The daemon's own registry; other parts (forwarders) may register their metrics on it. */
  readonly registry = new Registry();
  /** Hand to the store: counts write failures, times sync rounds. */
  readonly storage: StorageObserver;
  private readonly stopProcessMetrics: () => void;
  private readonly requests: Histogram<'route' | 'method' | 'status'>;
  private readonly rejections: Counter<'code'>;
  private readonly recorded: Counter<'target' | 'storage'>;
  /** Events recorded since the last scrape, by `target storage`. */
  private readonly uncounted = new Map([SITE_PERMANENT, SITE_EPHEMERAL, RUN_PERMANENT, RUN_EPHEMERAL].map((key) => [key, 0]));
  private store: TelemetryStore | undefined;

  constructor(opts: MetricsOptions) {
    const registers = [this.registry];
    new Gauge({ name: 'meridian_info', help: 'Always 1; the version label is the package version.', labelNames: ['version'], registers })
      .labels(opts.version).set(1);
    // counted in plain numbers per event (the ingest path) and handed to the counter at each scrape
    const uncounted = this.uncounted;
    this.recorded = new Counter({
      name: 'meridian_events_recorded_total', help: 'Events recorded, by target (site, run) and storage (permanent, ephemeral).', labelNames: ['target', 'storage'], registers,
      collect() {
        for (const [key, n] of uncounted) {
          if (n === 0) continue;
          const [target, storage] = key.split(' ') as [string, string];
          this.labels(target, storage).inc(n);
          uncounted.set(key, 0);
        }
      },
    });
    for (const target of ['site', 'run']) for (const storage of ['permanent', 'ephemeral']) this.recorded.labels(target, storage).inc(0);
    this.rejections = new Counter({ name: 'meridian_requests_rejected_total', help: 'Requests answered with an error, by error code.', labelNames: ['code'], registers });
    for (const code of Object.keys(ERROR_CATALOGUE)) this.rejections.labels(code).inc(0);
    this.requests = new Histogram({ name: 'meridian_http_request_duration_seconds', help: 'Time from request to the end of the answer, by route pattern, method and status.', labelNames: ['route', 'method', 'status'], buckets: REQUEST_BUCKETS, registers });
    this.storage = storageMetrics(this.registry);
    const view = () => this.store?.view;
    const run = () => this.store?.activeRun();
    new Gauge({ name: 'meridian_current_types', help: 'Types in the current view.', registers, collect() { this.set(view()?.size ?? 0); } });
    new Gauge({ name: 'meridian_run_active', help: '1 while a run is active, else 0.', registers, collect() { this.set(run() ? 1 : 0); } });
    const diskFull = () => this.store?.diskFull();
    new Gauge({ name: 'meridian_disk_full', help: '1 while the disk is full (writes answered 503 DISK_FULL), else 0.', registers, collect() { this.set(diskFull() ? 1 : 0); } });
    if (opts.staleTypes) {
      const stale = opts.staleTypes;
      new Gauge({ name: 'meridian_current_stale_types', help: 'Types whose current reading is stale, or expected and missing (--max-age, a reading\'s max_age_s, or learned).', registers, collect() { this.set(stale()); } });
    }
    registerReadingAges(this.registry, view, opts.clock, opts.maxAgeTypes ?? DEFAULT_MAX_AGE_TYPES);
    this.stopProcessMetrics = registerProcessMetrics(this.registry);
  }

  /** Watch a store: count its recorded events, read its view at each scrape. */
  watch(store: TelemetryStore): void {
    this.store = store;
    const uncounted = this.uncounted;
    store.onRecorded((event: RecordedEvent) => {
      const key = event.target === 'site' ? (event.permanent ? SITE_PERMANENT : SITE_EPHEMERAL) : (event.permanent ? RUN_PERMANENT : RUN_EPHEMERAL);
      uncounted.set(key, uncounted.get(key)! + 1);
    });
  }

  /** Export the forwarding sinks' lag, counts and state; `sinks()` gives their /status lines at each scrape. */
  watchSinks(sinks: () => SinkStatus[]): void {
    registerSinkMetrics(this.registry, sinks);
  }

  /** A request was answered: `route` is the route table's pattern (or UNMATCHED_ROUTE). */
  requestDone(route: string, method: string, status: number, seconds: number): void {
    this.requests.labels(route, method, String(status)).observe(seconds);
  }

  /** A request was answered with an error of `code`. */
  rejected(code: ErrorCode): void {
    this.rejections.labels(code).inc();
  }

  /** The Prometheus text exposition of every metric, and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** Stop what the process metrics started (the event-loop delay histogram). */
  close(): void {
    this.stopProcessMetrics();
  }
}

/** The storage metrics: write failures by target, sync rounds timed and failures counted. */
function storageMetrics(registry: Registry): StorageObserver {
  const registers = [registry];
  const writeFailures = new Counter({ name: 'meridian_write_failures_total', help: 'Writes that failed (their events were answered 503), by target.', labelNames: ['target'], registers });
  for (const target of ['site', 'run']) writeFailures.labels(target).inc(0);
  const syncFailures = new Counter({ name: 'meridian_sync_failures_total', help: 'fsync rounds that failed.', registers });
  const syncs = new Histogram({ name: 'meridian_sync_duration_seconds', help: 'Duration of fsync rounds (fdatasync of a data file).', buckets: SYNC_BUCKETS, registers });
  return {
    writeFailed: (target) => writeFailures.labels(target).inc(),
    syncStarted: () => {
      const end = syncs.startTimer();
      return (failed) => {
        end();
        if (failed) syncFailures.inc();
      };
    },
  };
}
