import { isLoopbackHost } from '../../lib/config.js';
import { MeridianError } from '../../lib/errors.js';
import { rulesToWire } from '../../lib/max-age.js';
import { fromLoopback, type Guard } from './guard.js';
import { sendJson } from './respond.js';
import type { AppDeps, Handler } from './route.js';
import type { RollupStatus } from '../rollup/rollup-status.js';
import type { TelemetryStore } from '../storage/store.js';
import type { LogDropped } from '../../lib/wire.js';

// The daemon itself: liveness, readiness, status and shutdown.

/** Handlers of /health, /ready, /status and /shutdown. */
export function lifecycleHandlers(deps: AppDeps, guard: Guard): Record<'health' | 'ready' | 'status' | 'shutdown', Handler> {
  const { store, config, freshness } = deps;
  const authenticated = config.token !== undefined;
  // said on every /status while anyone on the network may write (docs/operations.md "Security")
  const warning = !authenticated && !isLoopbackHost(config.host)
    ? `no token: anyone who can reach ${config.host} can record and read telemetry (--allow-unauthenticated)` : undefined;
  const maxAge = rulesToWire(freshness.judge.rules);
  return {
    health: (_req, res) => sendJson(res, 200, '{"ok":true}'),

    ready: (_req, res) => sendJson(res, 200,
      JSON.stringify({ ready: true, run_active: store.activeRun() !== undefined, version: deps.version })),

    status: (_req, res) => sendJson(res, 200, JSON.stringify({
      version: deps.version, pid: deps.process.pid, started_at: deps.process.startedAt, address: deps.process.address(),
      site_dir: deps.config.siteDir,
      run_id: store.activeRun()?.run_id ?? null, types: store.view.size,
      stale: freshness.judge.staleCount(deps.clock.now()), max_age: maxAge, learned: freshness.judge.learned(), recorded: store.recordedCounts(),
      authenticated, ...(warning === undefined ? {} : { warning }),
      suspended_run: suspendedRun(store), disk_full: store.diskFull() ?? null, forward: deps.forwardStatus(), ...damagedFiles(deps),
      ...logDropped(deps), ...alarmState(deps), ...outputsState(deps), ...alpacaStatus(deps), ...rollupsStatus(deps),
    })),

    shutdown: (req, res) => {
      if (!fromLoopback(req) && !guard.hasToken(req)) {
        throw new MeridianError('FORBIDDEN', '/shutdown is accepted from loopback clients or with the token.');
      }
      res.setHeader('Connection', 'close');
      sendJson(res, 200, '{"shutting_down":true}');
      res.on('finish', () => deps.onShutdown());
    },
  };
}

/**
 * `damaged`: the recorded files found damaged (what else they hold is served), and the state
 * files under `.meridian/` found damaged at start-up; only when there are some.
 */
function damagedFiles(deps: AppDeps): { damaged?: { file: string; reason: string }[] } {
  const damaged = [...deps.store.damagedState(), ...deps.history.damagedFiles(), ...deps.keptFiles?.() ?? []];
  return damaged.length > 0 ? { damaged } : {};
}

/** `alarm_state_error`: why the alarm state file cannot be written (the alarms are not durable), only while it cannot. */
function alarmState(deps: AppDeps): { alarm_state_error?: string } {
  const error = deps.alarms.stateError;
  return error === undefined ? {} : { alarm_state_error: error };
}

/** `outputs`: the file outputs' state (the Boltwood file), only when one is configured. */
function outputsState(deps: AppDeps): { outputs?: Record<string, unknown> } {
  const outputs = deps.protocols.status();
  return outputs === undefined ? {} : { outputs };
}

/** `alpaca`: the ASCOM Alpaca server's address, port and discovery port, only when [alpaca] configured one. */
function alpacaStatus(deps: AppDeps): { alpaca?: { address: string; port: number; discovery_port: number | null } } {
  const alpaca = deps.alpaca?.();
  return alpaca ? { alpaca } : {};
}

/** `rollups`: whether the rollup tiers are whole and written, and the last rebuild with its cause; only when the daemon keeps rollups. */
function rollupsStatus(deps: AppDeps): { rollups?: RollupStatus } {
  return deps.rollups ? { rollups: deps.rollups.status() } : {};
}

/** `log_dropped`: the log lines that could not be written, only when there are some. */
function logDropped(deps: AppDeps): { log_dropped?: LogDropped } {
  const dropped = deps.logDropped?.();
  return dropped ? { log_dropped: dropped } : {};
}

/** What /status says of a run that could not resume at start-up: null when there is none. */
function suspendedRun(store: TelemetryStore) {
  const suspended = store.suspendedRun();
  if (!suspended) return null;
  const { run_id, run_dir } = suspended.record;
  return { run_id, run_dir, reason: suspended.reason };
}
