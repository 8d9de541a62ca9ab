import { IANAZone } from 'luxon';
import { canonicalHost } from './host-name.js';
import { DAEMON_SETTINGS, givenValue, type DaemonConfig, type DaemonFlags, type Given } from './settings.js';
import { DEFAULT_HOST, DEFAULT_PORT, nonEmpty, parseHost, parsePort, parseToken } from './setting-values.js';

// One resolver for every setting: command-line flag, then environment variable, then default.
// The daemon's settings are the rows of lib/settings.ts; the values' parsers are in
// lib/setting-values.ts (re-exported here for the modules that read them).

export {
  addressUrl, DEFAULT_HOST, DEFAULT_MAX_BODY, DEFAULT_PORT, DEFAULT_SHUTDOWN_TIMEOUT_S, defaultSiteDir, FSYNC_MODES, hostPort,
  isLoopbackHost, LOG_FORMATS, MAX_MAX_BODY, parseAge, parsePort, type FsyncMode, type LogFormat,
} from './setting-values.js';
export type { DaemonConfig, DaemonFlags } from './settings.js';

/** Where a client finds the daemon. */
export interface ClientAddress {
  readonly host: string;
  readonly port: number;
  readonly token: string | undefined;
}

/** How a client's host and port options are named in messages: `host` in the library, `--host` on the command line. */
export interface AddressOptionNames {
  readonly host: string;
  readonly port: string;
  readonly token?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Resolve the daemon's configuration from flags, environment and defaults, one row of
 * DAEMON_SETTINGS at a time. `machineNames` are the names and addresses of this machine
 * (resolved at the daemon's edge: its host name, FQDN, interface addresses); requests naming
 * them in `Host` are accepted as well as the operator's `--allowed-hosts`. `hostName` (the
 * machine's, read at the edge) is the default unit id.
 */
export function resolveDaemonConfig(flags: DaemonFlags, env: Env, homeDir: string, machineNames: readonly string[] = [],
  hostName = 'localhost'): DaemonConfig {
  const context = { env, homeDir, hostName };
  const resolved = Object.assign({}, ...DAEMON_SETTINGS.map((setting) => setting.resolve(givenValue(setting, flags, env), context))) as DaemonConfig;
  const machine = machineNames.flatMap((name) => canonicalHost(name) ?? []);
  const allowedHosts = Object.freeze([...new Set([...resolved.allowedHosts, ...machine])]);
  return Object.freeze({ ...resolved, allowedHosts, ...resolveZone(env.TZ) });
}

/**
 * Resolve where a client (library or CLI) finds the daemon, once: option, then environment
 * (MERIDIAN_, else PANOPTES_), then default. A bad port, or a host that is not a plain name
 * or address (it holds a port, a path or a user), throws ConfigError naming the option
 * (`names`) or the variable.
 */
export function resolveClientAddress(flags: { host?: string; port?: string | number; token?: string }, env: Env,
  names: AddressOptionNames = { host: 'host', port: 'port' }): ClientAddress {
  const port = pickPort(flags.port, names.port, env);
  const host = pickHost(flags.host, env, names.host);
  return Object.freeze({ host, port, token: clientToken(flags.token, env, names.token ?? 'token') });
}

/**
 * The token a client sends: the option, else MERIDIAN_TELEMETRY_TOKEN; surrounding
 * whitespace dropped, a variable of whitespace only is no token (as for the daemon).
 */
export function clientToken(option: string | undefined, env: Env, name = 'token'): string | undefined {
  if (option !== undefined) return parseToken(option, name, false);
  const variable = nonEmpty(env.MERIDIAN_TELEMETRY_TOKEN);
  return variable === undefined ? undefined : parseToken(variable, 'MERIDIAN_TELEMETRY_TOKEN', true);
}

/**
 * Where a client finds the daemon uses the daemon's own rows (lib/settings.ts) for `--host`
 * and `--port`: the same variables (MERIDIAN_, else PANOPTES_), the same parsers, so a client
 * and the daemon on one unit agree on the address.
 */
function fromSetting(key: 'host' | 'port', flag: string | number | undefined, flagName: string, env: Env): Given | undefined {
  const given = givenValue(DAEMON_SETTINGS.find((s) => s.key === key)!, { [key]: flag }, env);
  return given && !given.fromVariable ? { ...given, name: flagName } : given;
}

function pickHost(flag: string | undefined, env: Env, flagName: string): string {
  const given = fromSetting('host', flag, flagName, env);
  return given ? parseHost(String(given.value), given.name) : DEFAULT_HOST;
}

function pickPort(flag: string | number | undefined, option: string, env: Env): number {
  const given = fromSetting('port', flag, option, env);
  return given ? parsePort(given.value as string | number, given.name) : DEFAULT_PORT;
}

function resolveZone(tz: string | undefined): { zone: string; zoneWarning: string | undefined } {
  // Judge the TZ given (not the process's own zone), so the resolver depends on its inputs only.
  if (tz === undefined || tz === '') return { zone: 'system', zoneWarning: undefined };
  const name = tz.startsWith(':') ? tz.slice(1) : tz;
  if (IANAZone.isValidZone(name)) return { zone: name, zoneWarning: undefined };
  return { zone: 'utc', zoneWarning: `TZ=${JSON.stringify(tz)} is not a known time zone; site days follow UTC` };
}

