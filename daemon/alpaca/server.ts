import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostPort, isLoopbackHost } from '../../lib/setting-values.js';
import type { Logger } from '../../lib/log.js';
import type { AlpacaSpec } from './config.js';
import type { AlpacaDevice } from './device.js';
import { startDiscovery, type Discovery } from './discovery.js';
import { alpacaListener } from './http.js';

// The ASCOM Alpaca server: its own HTTP listener on the [alpaca] port and, unless turned
// off, the UDP discovery responder; started after the daemon's own listener and stopped
// before the store closes (daemon/server.ts).

/** A running Alpaca server, as GET /status shows it. */
export interface RunningAlpaca {
  /** `host:port` of the Alpaca API. */
  readonly address: string;
  readonly port: number;
  /** The UDP discovery port, null when discovery is off. */
  readonly discoveryPort: number | null;
  close(): Promise<void>;
}

/** Why the Alpaca server cannot start (its port taken, its address not on this machine). */
export class AlpacaStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AlpacaStartError';
  }
}

/** Listen on the spec's address and port with these devices, then answer discovery. */
export async function startAlpaca(spec: AlpacaSpec, deps: { devices: readonly AlpacaDevice[]; version: string; logger: Logger }): Promise<RunningAlpaca> {
  let transaction = 0;
  const nextTransaction = () => (transaction = transaction >= 4294967295 ? 1 : transaction + 1);
  const server = http.createServer(alpacaListener({
    devices: deps.devices, logger: deps.logger, nextTransaction,
    description: { serverName: spec.serverName, location: spec.location, version: deps.version },
  }));
  server.keepAliveTimeout = 5000;
  await listen(server, spec.port, spec.bind, 'TCP');
  const port = (server.address() as AddressInfo).port;
  let discovery: Discovery | undefined;
  if (spec.discoveryPort !== undefined) {
    try {
      discovery = await startDiscovery({ bind: spec.bind, port: spec.discoveryPort, alpacaPort: port, logger: deps.logger });
    } catch (error) {
      await closeServer(server);
      throw new AlpacaStartError(`cannot answer Alpaca discovery on UDP ${hostPort(spec.bind, spec.discoveryPort)}: ${reason(error)}`, { cause: error });
    }
  }
  const address = hostPort(spec.bind, port);
  if (!isLoopbackHost(spec.bind)) {
    deps.logger.warn(`ASCOM Alpaca on ${address} has no authentication (Alpaca has none): anyone who can reach it can read the safety verdict `
      + 'and the conditions, and connect or disconnect the devices; keep the port inside the observatory network');
  }
  deps.logger.info(`ASCOM Alpaca on http://${address} (${deps.devices.map((d) => `${d.spec.deviceType} ${d.spec.number}`).join(', ')}), `
    + (discovery ? `discovery on UDP ${discovery.port}` : 'discovery off'));
  return {
    address, port, discoveryPort: discovery?.port ?? null,
    close: async () => {
      await Promise.all([closeServer(server), discovery?.close()]);
    },
  };
}

async function listen(server: http.Server, port: number, host: string, what: string): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => { server.off('error', reject); resolve(); });
    });
  } catch (error) {
    throw new AlpacaStartError(`cannot listen for ASCOM Alpaca on ${what} ${hostPort(host, port)}: ${reason(error)}`, { cause: error });
  }
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EADDRINUSE' ? 'the port is already in use'
    : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? 'the address is not available on this machine'
    : code === 'EACCES' ? 'permission denied' : (error as Error).message;
}
