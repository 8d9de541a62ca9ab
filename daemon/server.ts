import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostPort, isLoopbackHost, type DaemonConfig } from '../lib/config.js';
import type { Logger } from '../lib/log.js';
import { formatTs, type Clock } from '../lib/time.js';
import { VERSION } from '../lib/version.js';
import { buildApp } from './http/app.js';
import { TelemetryStore } from './storage/store.js';

// Listening: open the store, build the app, bind, and close it all down in order.

/** A running daemon. */
export interface RunningDaemon {
  readonly server: http.Server;
  readonly store: TelemetryStore;
  /** The bound address as `host:port` (port resolved when 0 was asked for). */
  readonly address: string;
  readonly port: number;
  /** Resolves once the daemon has stopped (by close() or /shutdown). */
  readonly closed: Promise<void>;
  /** Stop accepting, finish requests in flight, sync, snapshot, close files. */
  close(): Promise<void>;
}

/** Why the daemon cannot start (port taken, directory unwritable, unsafe binding). */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/** Start the daemon with a resolved config (port 0 picks a free port: for embedding and tests). */
export async function startDaemon(config: DaemonConfig, deps: { clock: Clock; logger: Logger; snapshotIntervalMs?: number }): Promise<RunningDaemon> {
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
  let store: TelemetryStore;
  try {
    store = TelemetryStore.open({ siteDir: config.siteDir, zone: config.zone, fsync: config.fsync, clock: deps.clock, logger, snapshotIntervalMs: deps.snapshotIntervalMs });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StartupError(`site directory ${config.siteDir} is not usable (${code ?? (error as Error).message})`, { cause: error });
  }

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => { resolveClosed = resolve; });
  let closing: Promise<void> | undefined;
  const server = http.createServer({ keepAliveTimeout: 5000 });
  const close = () => {
    closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await store.close();
      logger.info('stopped');
      resolveClosed();
    })();
    return closing;
  };
  let address = hostPort(config.host, config.port);
  const app = buildApp({
    config, store, logger, clock: deps.clock, version: VERSION,
    bootId: randomBytes(4).toString('hex'),
    process: { pid: process.pid, startedAt: formatTs(deps.clock.now()), address: () => address },
    onShutdown: () => { logger.info('shutdown requested over HTTP'); void close(); },
  });
  server.on('request', app.handler as unknown as http.RequestListener);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => { server.off('error', reject); resolve(); });
    });
  } catch (error) {
    await store.close();
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'EADDRINUSE' ? 'the port is already in use'
      : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? 'the address is not available on this machine'
      : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new StartupError(`cannot listen on ${config.host}:${config.port}: ${reason}`, { cause: error });
  }
  const port = (server.address() as AddressInfo).port;
  address = hostPort(config.host, port);
  logger.info(`listening on http://${address} (site ${config.siteDir}, fsync ${config.fsync}, version ${VERSION})`);
  return { server, store, address, port, closed, close };
}
