import { TelemetryClient } from '../client/client.js';
import { hostPort, parsePort, resolveClientAddress } from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import type { CliIo } from './io.js';
import { textOption, type ParsedOptions } from './options.js';

// The daemon a command talks to: --host/--port/--token, else the environment, else the defaults.

/** A client for the daemon the options name, and its address for messages. */
export interface Connection {
  client: TelemetryClient;
  host: string;
  port: number;
  /** `host:port`, as every message names the daemon. */
  address: string;
}

/** Resolve the address and token (flag > env > default) and build the client that sends the token. */
export function connect(opts: ParsedOptions, io: CliIo): Connection {
  const port = textOption(opts, 'port');
  if (port !== undefined) parsePort(port, '--port');
  const token = textOption(opts, 'token');
  if (token !== undefined && token.trim() === '') throw new ConfigError('--token', 'a non-empty token', token);
  const resolved = resolveClientAddress({ host: textOption(opts, 'host'), port, token }, io.env);
  const client = new TelemetryClient({ host: resolved.host, port: resolved.port, token: resolved.token, env: io.env });
  return { client, host: resolved.host, port: resolved.port, address: hostPort(resolved.host, resolved.port) };
}
