import { randomBytes } from 'node:crypto';
import { exactJson } from '../lib/exact-json.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostPort, isLoopbackHost, type DaemonConfig } from '../lib/config.js';
import { formatMaxAge } from '../lib/max-age.js';
import type { Logger } from '../lib/log.js';
import { formatTs, type Clock } from '../lib/time.js';
import { VERSION } from '../lib/version.js';
import { holderOf, portInUse } from './port-holder.js';
import { unitAlarms } from '../lib/unit-alarms.js';
import { AlarmEngine } from './alarms/engine.js';
import type { AlpacaSpec } from './alpaca/config.js';
import { alpacaDevices, servedTypes } from './alpaca/devices.js';
import { startAlpaca, type RunningAlpaca } from './alpaca/server.js';
import type { ConditionsConfig } from './conditions/config.js';
import { readConditions } from './conditions/read.js';
import { loadUniqueIds, uniqueIdsFile } from './alpaca/unique-ids.js';
import type { AlarmSpec } from './alarms/config.js';
import { alarmStateFile, AlarmStateVersionError } from './alarms/state-file.js';
import { idleForwarding, startForwarding, type Forwarding } from './forward/forwarding.js';
import type { SinkSpec } from './forward/sink.js';
import { FreshnessJudge } from './freshness/judge.js';
import { CHECK_INTERVAL_MS, StaleWatch } from './freshness/stale-events.js';
import { learnedLimitsFile, readLearnedLimits } from './freshness/limits-file.js';
import { LearnedLimitsKeeper } from './freshness/limits-keeper.js';
import { History } from './history/history.js';
import type { BoltwoodSpec } from './outputs/boltwood-config.js';
import { checkBoltwoodPlace, realPathOf } from './outputs/boltwood-place.js';
import { createOutputs } from './outputs/outputs.js';
import type { SafetySpec } from './safety/config.js';
import { SafetyVerdict } from './safety/verdict.js';
import { ScopeRounds } from './rules/scope.js';
import { Rollups } from './rollup/rollups.js';
import { buildApp } from './http/app.js';
import { Drain } from './http/drain.js';
import { SiteLockedError } from './storage/site-lock.js';
import { statePaths } from './storage/state-files.js';
import { nodeFs, type StorageFs } from './storage/storage-fs.js';
import { DaemonMetrics } from './metrics/daemon-metrics.js';
import { Housekeeping } from './storage/housekeeping.js';
import { TelemetryStore } from './storage/store.js';
import { StreamHub } from './stream/hub.js';
import type { LogDropped } from '../lib/wire.js';

// Listening: open the store, build the app, bind, and close it all down in order.

/** A running daemon. */
export interface RunningDaemon {
  readonly server: http.Server;
  readonly store: TelemetryStore;
  /** The forwarding sinks (none unless configured). */
  readonly forwarding: Forwarding;
  /** How fresh each type is, and the watch recording stale/fresh events (for metrics and tests). */
  readonly freshness: { readonly judge: FreshnessJudge; readonly watch: StaleWatch };
  /** The safety verdict (GET /safety; `check()` for tests on a manual clock). */
  readonly safety: SafetyVerdict;
  /** The configured alarms (none without [[alarm]] tables). */
  readonly alarms: AlarmEngine;
  /** The ASCOM Alpaca server, when [alpaca] configured one. */
  readonly alpaca: RunningAlpaca | undefined;
  /** The bound address as `host:port` (port resolved when 0 was asked for). */
  readonly address: string;
  readonly port: number;
  /** Retention and compression, when --compress-after or --retain is set. */
  readonly housekeeping: Housekeeping | undefined;
  /** The route table's method and path of every route (`:name` for a path parameter). */
  readonly routes: readonly (readonly [method: string, path: string])[];
  /** Resolves once the daemon has stopped (by close() or /shutdown). */
  readonly closed: Promise<void>;
  /**
   * Stop accepting, refuse what arrives, finish requests in flight (cut after the config's
   * shutdown timeout, or at once with `now`: a second Ctrl-C), stop the sinks (bounded), sync, snapshot, close files.
   */
  close(options?: { now?: boolean }): Promise<void>;
}

/** Why the daemon cannot start (port taken, directory unwritable, unsafe binding). */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/** Start the daemon with a resolved config (port 0 picks a free port: for embedding and tests). */
export async function startDaemon(config: DaemonConfig, deps: {
  clock: Clock; logger: Logger; snapshotIntervalMs?: number; fs?: StorageFs; forward?: readonly SinkSpec[];
  /** The [[alarm]] tables of the config file, checked (their [[notify]] sinks are among `forward`). */
  alarms?: readonly AlarmSpec[];
  /** The cap on types with a reading-age series (default 1000, docs/operations.md). */
  maxAgeTypes?: number;
  /** Whether a forwarder has yet to deliver a data file (by plain path): housekeeping leaves it alone. */
  heldBack?: (file: string) => boolean;
  /** How often housekeeping runs (ms; default hourly, 0: at start only). */
  housekeepingIntervalMs?: number;
  /** How often the daemon looks for types turning stale (ms; default 1000, 0: only at start). */
  freshnessIntervalMs?: number;
  /** The config file's `[safety]` section, checked (none: the verdict is unsafe, not configured). */
  safety?: SafetySpec;
  /** How often the safety verdict judges every rule again (ms; default 1000, 0: only on readings and timers). */
  safetyIntervalMs?: number;
  /** The config file's `[alpaca]` section, checked (none: no Alpaca server). */
  alpaca?: AlpacaSpec;
  /** The config file's `[conditions]` mapping, checked (none: no properties mapped). */
  conditions?: ConditionsConfig;
  /** The config file's `[boltwood]` section, checked (none: no file is written). */
  boltwood?: BoltwoodSpec;
  /** The chunk size (characters) of GET /current and the snapshot (default 1 Mi); tests make it small. */
  viewChunkChars?: number;
  /** The log lines that could not be written (GET /status `log_dropped`); the edge counts them. */
  logDropped?: () => LogDropped | undefined;
}): Promise<RunningDaemon> {
  const { logger } = deps;
  const exposed = !isLoopbackHost(config.host) && config.token === undefined;
  if (exposed && !config.allowUnauthenticated) {
    throw new StartupError(`refusing to bind ${config.host} without a token: set --token or MERIDIAN_TELEMETRY_TOKEN, ` +
      'bind localhost, or accept an open daemon with --allow-unauthenticated');
  }
  if (exposed) {
    logger.warn(`UNAUTHENTICATED: bound to ${config.host} without a token (--allow-unauthenticated): ` +
      'anyone who can reach this port can record and read telemetry, start and stop runs');
  }
  if (config.zoneWarning) logger.warn(config.zoneWarning);
  // a Boltwood file inside the site directory would be renamed over recorded data: refused before it is opened
  if (deps.boltwood) checkBoltwoodPlace(realPathOf(deps.boltwood.path), { siteDir: realPathOf(config.siteDir) }, deps.boltwood.where);
  // a busy port is reported before the site directory is touched or a recovery line logged
  const busy = config.port === 0 ? undefined : await portInUse(config.host, config.port);
  if (busy) throw new StartupError(`cannot listen on ${config.host}:${config.port}: ${busy}`);
  // the judge is made once the store is open; a scrape before that counts nothing stale
  let judge: FreshnessJudge | undefined;
  const metrics = new DaemonMetrics({
    clock: deps.clock, version: VERSION, maxAgeTypes: deps.maxAgeTypes, staleTypes: () => judge?.staleCount(deps.clock.now()) ?? 0,
  });
  let store: TelemetryStore;
  try {
    store = await TelemetryStore.open({
      siteDir: config.siteDir, zone: config.zone, fsync: config.fsync, clock: deps.clock, logger,
      snapshotIntervalMs: deps.snapshotIntervalMs, fs: deps.fs, observer: metrics.storage, viewChunkChars: deps.viewChunkChars,
    });
  } catch (error) {
    metrics.close();
    if (error instanceof SiteLockedError) throw new StartupError(`${error.message}; stop it first or use another --site-dir`, { cause: error });
    const code = (error as NodeJS.ErrnoException).code;
    throw new StartupError(`site directory ${config.siteDir} is not usable (${code ?? (error as Error).message})`, { cause: error });
  }

  // the learned limits of the last life (a damaged file: set aside, reported, the fail-safe rule instead)
  const limitsFile = learnedLimitsFile(config.siteDir);
  const io = deps.fs ?? nodeFs;
  const { limits: known, damage: limitsDamage } = readLearnedLimits(limitsFile, io, deps.clock.now());
  if (limitsDamage) logger.warn(`${limitsDamage.file} ${limitsDamage.reason}`);
  judge = new FreshnessJudge(store.view, config.maxAge, deps.clock, known, deps.safety?.required);
  const keeper = new LearnedLimitsKeeper({ judge, file: limitsFile, io, logger });
  // the judge learns each type's cadence from the readings that become current (before the watch hears of them)
  const learning = judge;
  const stopLearning = store.onRecorded((event) => {
    if (event.makeCurrent) learning.observe(event.reading);
  });
  const watch = new StaleWatch({ store, judge, clock: deps.clock, logger, intervalMs: deps.freshnessIntervalMs ?? CHECK_INTERVAL_MS });
  // the verdict and the alarms judging after the same turn share one scope (each type judged, each field read once)
  const rounds = new ScopeRounds(judge, store.view);
  const safety = new SafetyVerdict({ store, judge, clock: deps.clock, logger, spec: deps.safety, intervalMs: deps.safetyIntervalMs ?? CHECK_INTERVAL_MS, rounds });
  const outputs = createOutputs({
    verdict: safety, judge, conditions: deps.conditions ?? { mappings: [] }, clock: deps.clock, logger, zone: config.zone, boltwood: deps.boltwood, io: deps.fs,
  });
  let alarms: AlarmEngine;
  try {
    alarms = new AlarmEngine({
      specs: deps.alarms ?? [], store, judge, clock: deps.clock, logger, file: alarmStateFile(config.siteDir),
      intervalMs: deps.freshnessIntervalMs ?? CHECK_INTERVAL_MS, rounds,
    });
  } catch (error) {
    if (!(error instanceof AlarmStateVersionError)) throw error;
    await store.close();
    metrics.close();
    throw new StartupError(error.message, { cause: error });
  }

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => { resolveClosed = resolve; });
  let closing: Promise<void> | undefined;
  let forwarding: Forwarding = idleForwarding();
  const drain = new Drain(logger, { keepAliveTimeout: 5000, requireHostHeader: false });
  const server = drain.server;
  const history = new History(config.siteDir, statePaths(config.siteDir).index,
    ({ file, reason }) => logger.error(reason.startsWith('missing') ? `${file} is ${reason}` : `${file} is damaged: ${reason}; what it holds besides is served`));
  const streams = new StreamHub(store, logger);
  let rollups: Rollups | undefined;
  try {
    // before the port is bound: nothing is recorded while the events after the checkpoint are folded again
    if (config.rollups) rollups = await Rollups.open({ siteDir: config.siteDir, zone: config.zone, rules: config.maxAge, store, history, logger, clock: deps.clock });
  } catch (error) {
    await store.close();
    metrics.close();
    throw new StartupError(`the rollups under ${config.siteDir}/.meridian/rollups cannot be opened (${(error as Error).message})`, { cause: error });
  }
  let warming = true;
  let alpaca: RunningAlpaca | undefined;
  const close = (options?: { now?: boolean }) => {
    if (closing) {
      if (options?.now) void drain.stop(0);
      return closing;
    }
    closing = (async () => {
      warming = false;
      // open streams never finish by themselves: end them first, so that the drain is not
      // held until its deadline
      streams.close();
      await Promise.all([drain.stop(options?.now ? 0 : config.shutdownTimeoutMs), forwarding.stop(), alpaca?.close()]);
      await housekeeping?.close();
      watch.stop();
      stopLearning();
      keeper.stop();
      outputs.stop();
      safety.stop();
      alarms.stop();
      await rollups?.close();
      await store.close();
      metrics.close();
      logger.info('stopped');
      resolveClosed();
    })();
    return closing;
  };
  metrics.watch(store);
  metrics.watchSinks(() => forwarding.status());
  const housekeeping = config.compressAfterMs === undefined && config.retainMs === undefined ? undefined : new Housekeeping({
    siteDir: config.siteDir, compressAfterMs: config.compressAfterMs, retainMs: config.retainMs, clock: deps.clock, logger,
    inUse: () => store.filesInUse(), onDeleted: (file) => { store.fileRemoved(file); history.fileRemoved(file); }, heldBack: (file) => deps.heldBack?.(file) === true || forwarding.holds(file), intervalMs: deps.housekeepingIntervalMs,
  });
  let address = hostPort(config.host, config.port);
  const app = buildApp({
    config, store, history, rollups, streams, logger, clock: deps.clock, version: VERSION, metrics,
    bootId: randomBytes(4).toString('hex'),
    process: { pid: process.pid, startedAt: formatTs(deps.clock.now()), address: () => address },
    forwardStatus: () => forwarding.status(), keptFiles: () => [...limitsDamage ? [limitsDamage] : [], ...housekeeping?.keptFiles() ?? []],
    logDropped: deps.logDropped ?? (() => undefined),
    onShutdown: () => { logger.info('shutdown requested over HTTP'); void close(); },
    freshness: { judge, watch }, safety, alarms,
    protocols: outputs,
    alpaca: () => alpaca && { address: alpaca.address, port: alpaca.port, discovery_port: alpaca.discoveryPort },
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    drain.admit(res);
    app.handler(req as never, res);
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => { server.off('error', reject); resolve(); });
    });
  } catch (error) {
    await store.close();
    metrics.close();
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'EADDRINUSE' ? `the port is already in use ${await holderOf(config.host, config.port)}`
      : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? 'the address is not available on this machine'
      : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new StartupError(`cannot listen on ${config.host}:${config.port}: ${reason}`, { cause: error });
  }
  const port = (server.address() as AddressInfo).port;
  address = hostPort(config.host, port);
  if (deps.alpaca) {
    try {
      const conditions = deps.conditions ?? { mappings: [] };
      const uniqueIds = loadUniqueIds(uniqueIdsFile(config.siteDir), servedTypes(conditions), io, (message) => logger.warn(message), deps.clock.now());
      const judging = judge;
      const devices = alpacaDevices({
        verdict: safety, conditions, readConditions: () => readConditions(judging, conditions, deps.clock.now()),
        version: VERSION, now: () => deps.clock.now(), uniqueIds,
      });
      alpaca = await startAlpaca(deps.alpaca, { devices, version: VERSION, logger });
    } catch (error) {
      await drain.stop(0);
      await rollups?.close();
      await store.close();
      metrics.close();
      throw new StartupError((error as Error).message, { cause: error });
    }
  }
  forwarding = startForwarding(deps.forward ?? [], {
    store, siteDir: config.siteDir, clock: deps.clock, logger, fsync: config.fsync, unit: config.unitId,
    alarmState: (id) => {
      if (!alarms.configured || !alarms.has(id)) return undefined;
      const { state, since } = alarms.get(id);
      return { state, since };
    },
    alarms: () => (alarms.configured ? unitAlarms(alarms.list()) : null),
  });
  // index the history in the background, so that the first query need not
  void history.warm(store.head(), () => !warming).catch((error) => logger.warn(`indexing the history failed: ${(error as Error).message}`));
  logger.info(`listening on http://${address} (site ${config.siteDir}, fsync ${config.fsync}, version ${VERSION})`);
  if (config.maxAge.length > 0) logger.info(`readings are stale past their max age: ${formatMaxAge(config.maxAge)} (seconds)`);
  // which Host names the guard accepts (a 403 "not one of this daemon's names" is explained here)
  logger.debug(`Host names accepted besides ${config.host} and loopback: ${config.allowedHosts.join(', ') || 'none'}`);
  watch.start();
  keeper.start();
  safety.start();
  outputs.start();
  // after the forwarders: a [[notify]] sink's first cursor is taken before any escalation is recorded
  alarms.onChange((alarm) => streams.deliverAlarm(exactJson(alarm)));
  alarms.start();
  housekeeping?.start();
  return {
    server, store, freshness: { judge, watch }, safety, alarms, alpaca, get forwarding() { return forwarding; }, address, port, closed, close, housekeeping,
    routes: app.routes.map(([method, path]) => [method, path] as const),
  };
}
