import { TelemetryClient } from '../client/client.js';
import { addressUrl, hostPort, resolveClientAddress } from '../lib/config.js';
import type { CliIo } from './io.js';
import { textOption, type ParsedOptions } from './options.js';

// The daemon a command talks to: --host/--port/--token, else the environment, else the
// defaults, resolved here once. The client is handed the result and reads no environment.

/** The daemon a command talks to: a client for it, and its address for messages. */
export interface DaemonTarget {
  client: TelemetryClient;
  host: string;
  port: number;
  /** `host:port`, as every message names the daemon. */
  address: string;
}

/** Resolve the address and token (flag > env > default) and build the client that sends the token. */
export function connect(opts: ParsedOptions, io: CliIo, timeoutSeconds?: number): DaemonTarget {
  const port = textOption(opts, 'port');
  const token = textOption(opts, 'token');
  const resolved = resolveClientAddress({ host: textOption(opts, 'host'), port, token }, io.env, { host: '--host', port: '--port', token: '--token' });
  const client = new TelemetryClient({ baseUrl: addressUrl(resolved), token: resolved.token, env: {}, ...(timeoutSeconds === undefined ? {} : { timeout: timeoutSeconds }) });
  return { client, host: resolved.host, port: resolved.port, address: hostPort(resolved.host, resolved.port) };
}
