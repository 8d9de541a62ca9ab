import type { Got } from 'got';
import { addressUrl, clientToken, parsePort, resolveClientAddress } from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';

// The client's options, checked once at construction so a mistake throws there and not at the first request.

/** Options of `new TelemetryClient()`; every one optional. */
export interface TelemetryClientOptions {
  /** Daemon host; default MERIDIAN_TELEMETRY_HOST, else localhost. */
  host?: string;
  /** Daemon port (number or numeric string, 1-65535); default MERIDIAN_TELEMETRY_PORT, else 6562. */
  port?: number | string;
  /** Seconds before a request gives up (default 5). */
  timeout?: number;
  /** A got instance to build on (its agent, hooks and headers are kept). */
  session?: Got;
  /** Full base URL such as `http://127.0.0.1:7000`; wins over host and port. */
  baseUrl?: string;
  /** Bearer token; default MERIDIAN_TELEMETRY_TOKEN. */
  token?: string;
  /** Environment to read defaults from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What a client runs on once its options are checked. */
export interface ClientSettings {
  /** Where requests go, without a trailing slash: `http://localhost:6562`. */
  readonly baseUrl: string;
  readonly timeoutSeconds: number;
  readonly token: string | undefined;
}

export const DEFAULT_TIMEOUT_SECONDS = 5.0;
// Node's timers hold at most 2^31-1 ms; a longer one would fire after 1 ms.
const MAX_TIMEOUT_SECONDS = 2_147_483;

/**
 * Check the options and resolve the address and token: a `baseUrl` is taken as it is (the
 * host and port variables are not even read, so a stale one cannot break it); otherwise host
 * and port resolve through lib/config, as everywhere else.
 */
export function resolveClientSettings(options: TelemetryClientOptions, env: NonNullable<TelemetryClientOptions['env']>): ClientSettings {
  const timeoutSeconds = options.timeout ?? DEFAULT_TIMEOUT_SECONDS;
  if (typeof timeoutSeconds !== 'number' || !(timeoutSeconds > 0 && timeoutSeconds <= MAX_TIMEOUT_SECONDS)) {
    throw new ConfigError('timeout', `a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`, timeoutSeconds);
  }
  // a bad port or host is refused even next to a baseUrl, which would otherwise hide it
  if (options.port !== undefined) parsePort(options.port, 'port');
  if (options.host !== undefined && (typeof options.host !== 'string' || options.host.trim() === '')) {
    throw new ConfigError('host', 'a host name or address', options.host);
  }
  if (options.baseUrl !== undefined) {
    const token = clientToken(options.token, env);
    return Object.freeze({ baseUrl: checkBaseUrl(options.baseUrl), timeoutSeconds, token });
  }
  const address = resolveClientAddress({ host: options.host, port: options.port, token: options.token }, env);
  return Object.freeze({ baseUrl: addressUrl(address), timeoutSeconds, token: address.token });
}

function checkBaseUrl(baseUrl: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof baseUrl === 'string' ? new URL(baseUrl) : undefined;
  } catch { /* not a URL: refused below */ }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username) {
    throw new ConfigError('baseUrl', 'an http:// or https:// URL', baseUrl);
  }
  return (baseUrl as string).replace(/\/+$/, '');
}
