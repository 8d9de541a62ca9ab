import type { ServerResponse } from 'node:http';
import type { Request } from 'polka';
import type { DaemonConfig } from '../../lib/config.js';
import type { Logger } from '../../lib/log.js';
import type { Clock } from '../../lib/time.js';
import type { LogDropped, SinkStatus } from '../../lib/wire.js';
import type { AlarmEngine } from '../alarms/engine.js';
import type { FreshnessJudge } from '../freshness/judge.js';
import type { StaleWatch } from '../freshness/stale-events.js';
import type { DaemonMetrics } from '../metrics/daemon-metrics.js';
import type { History } from '../history/history.js';
import type { Rollups } from '../rollup/rollups.js';
import type { TelemetryStore } from '../storage/store.js';
import type { StreamHub } from '../stream/hub.js';

// What a route is and what its handlers are built from.

/** A route's handler: answers through `res` or throws a MeridianError (the one error path). */
export type Handler = (req: Request, res: ServerResponse) => void | Promise<void>;

/** One row of the route table: method, path (`:name` for a last path parameter), handler, and
 * whether the route takes the fast lane (hot routes skip polka's URL parse and route search). */
export type Route = readonly [method: string, path: string, handler: Handler, lane?: 'fast'];

/** What the app is built from. */
export interface AppDeps {
  config: DaemonConfig;
  store: TelemetryStore;
  /** Reads the recorded files back (GET /history, the stream's replay). */
  history: History;
  /** Files /status lists under `damaged` besides those history found (a .gz kept beside its plain file, a damaged learned-limits.json). */
  keptFiles?: () => { file: string; reason: string }[];
  /** The rollup tiers (GET /history?step=, POST /rollups/rebuild); undefined with `--rollups off`. */
  rollups: Rollups | undefined;
  /** The live /stream clients. */
  streams: StreamHub;
  logger: Logger;
  clock: Clock;
  version: string;
  /** Each forwarding sink's line of GET /status. */
  forwardStatus: () => SinkStatus[];
  /** The log lines that could not be written (GET /status `log_dropped`), undefined while none. */
  logDropped?: () => LogDropped | undefined;
  /** The daemon's metrics (GET /metrics). */
  metrics: DaemonMetrics;
  /** Called once /shutdown has been answered. */
  onShutdown: () => void;
  /** Distinguishes ETags of this process from those of an earlier one. */
  bootId: string;
  /** What GET /status reports about the process: its id, start time (ts) and bound address. */
  process: { pid: number; startedAt: string; address: () => string };
  /** How fresh each type is (`--max-age`), and the watch that records stale/fresh events. */
  freshness: { judge: FreshnessJudge; watch: StaleWatch };
  /** The configured alarms (GET /alarms; none without [[alarm]] tables). */
  alarms: AlarmEngine;
  /** The safety verdict (daemon/safety/): the body of GET /safety, judged when asked. */
  safety: { answerText(): string };
  /** The verdict and the mapped conditions in INDI's forms (GET /safety/indi and /safety/watcher), and the file outputs' state (GET /status `outputs`): daemon/outputs/. */
  protocols: { indiText(): string; watcherText(): string; status(): Record<string, unknown> | undefined };
  /** The ASCOM Alpaca server's address and ports for GET /status, undefined without [alpaca]. */
  alpaca?: () => { address: string; port: number; discovery_port: number | null } | undefined;
}
