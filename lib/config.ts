import path from 'node:path';
import { IANAZone } from 'luxon';
import { ConfigError } from './errors.js';
import { parseMaxAge, type MaxAgeRules } from './max-age.js';

// One resolver for every setting: command-line flag, then environment variable, then default.

export const DEFAULT_HOST = 'localhost';
export const DEFAULT_PORT = 6562;
export const DEFAULT_MAX_BODY = 1024 * 1024;
/**
 * The highest --max-body (256 MiB): one event is held as one string (its body, its envelope
 * line), and a string cannot pass ~512 Mi characters; half of that leaves room for the
 * envelope and the run id. docs/storage.md (Limits).
 */
export const MAX_MAX_BODY = 256 * 1024 * 1024;
/** How long a stop waits for requests in flight before closing their connections (seconds). */
export const DEFAULT_SHUTDOWN_TIMEOUT_S = 3;

/** How hard the daemon pushes each line to the disk before answering. */
export type FsyncMode = 'always' | 'batch' | 'off';
export const FSYNC_MODES: readonly FsyncMode[] = ['always', 'batch', 'off'];

/** How log lines are written: `<time> <LEVEL> <message>`, or one JSON object per line. */
export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

/** Everything the daemon needs to know, resolved and frozen. */
export interface DaemonConfig {
  readonly host: string;
  readonly port: number;
  readonly siteDir: string;
  readonly token: string | undefined;
  readonly fsync: FsyncMode;
  readonly maxBody: number;
  readonly verbose: boolean;
  readonly accessLogs: boolean;
  /** How long a stop waits for requests in flight (ms) before closing their connections. */
  readonly shutdownTimeoutMs: number;
  readonly logFormat: LogFormat;
  /** Gzip closed day files and stopped runs' files older than this (ms); undefined: never. */
  readonly compressAfterMs: number | undefined;
  /** Delete closed day files and stopped runs' files older than this (ms); undefined: keep all. */
  readonly retainMs: number | undefined;
  /** Start on a non-loopback address without a token (a PANOPTES unit on a private network). */
  readonly allowUnauthenticated: boolean;
  /** How old a reading of each type may be (`--max-age`); empty: nothing is ever stale. */
  readonly maxAge: MaxAgeRules;
  /** The luxon zone of the site day: the zone TZ names, "system" when TZ is unset, "utc" when TZ is invalid. */
  readonly zone: string;
  /** Set when TZ named an unknown zone: the warning to log at start-up. */
  readonly zoneWarning: string | undefined;
}

/** Raw daemon options as flags give them (strings or numbers, all optional). */
export interface DaemonFlags {
  host?: string;
  port?: string | number;
  siteDir?: string;
  token?: string;
  fsync?: string;
  maxBody?: string | number;
  verbose?: boolean;
  accessLogs?: boolean;
  /** Seconds (`--shutdown-timeout`). */
  shutdownTimeout?: string | number;
  logFormat?: string;
  compressAfter?: string;
  retain?: string;
  allowUnauthenticated?: boolean;
  maxAge?: string;
}

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
}

type Env = Readonly<Record<string, string | undefined>>;

/** Resolve the daemon's configuration from flags, environment and defaults. */
export function resolveDaemonConfig(rawFlags: DaemonFlags, env: Env, homeDir: string): DaemonConfig {
  const { zone, zoneWarning } = resolveZone(env.TZ);
  // argv parsers turn `--token 123` or `--site-dir 2026` into numbers: take them as the text given
  const flags = { ...rawFlags, host: text(rawFlags.host), siteDir: text(rawFlags.siteDir), token: text(rawFlags.token) };
  const siteDirEnv = fromEnv(env, 'SITE_DIR');
  return Object.freeze({
    host: pickHost(flags.host, env),
    port: pickPort(flags.port, '--port', env),
    siteDir: path.resolve(nonEmptyFlag(flags.siteDir, '--site-dir', 'a directory path')
      ?? siteDirEnv?.value ?? defaultSiteDir(env, homeDir)),
    token: nonEmptyFlag(flags.token, '--token', 'a non-empty token') ?? nonEmpty(env.MERIDIAN_TELEMETRY_TOKEN),
    fsync: parseFsync(flags.fsync ?? 'batch'),
    maxBody: parseMaxBody(flags.maxBody ?? DEFAULT_MAX_BODY),
    verbose: flags.verbose === true,
    accessLogs: flags.accessLogs === true,
    shutdownTimeoutMs: parseShutdownTimeout(flags.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT_S),
    logFormat: parseLogFormat(flags.logFormat ?? 'text'),
    compressAfterMs: flags.compressAfter === undefined ? undefined : parseAge(flags.compressAfter, '--compress-after'),
    retainMs: flags.retain === undefined ? undefined : parseAge(flags.retain, '--retain'),
    allowUnauthenticated: flags.allowUnauthenticated === true
      || parseSwitch(env.MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED, 'MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED'),
    maxAge: resolveMaxAge(text(rawFlags.maxAge), env),
    zone,
    zoneWarning,
  });
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
  return Object.freeze({ host, port, token: flags.token ?? nonEmpty(env.MERIDIAN_TELEMETRY_TOKEN) });
}

/** The base URL of a resolved address, `http://host:port` (what a client is handed as `baseUrl`). */
export function addressUrl(address: { host: string; port: number }): string {
  return `http://${hostPort(address.host, address.port)}`;
}

/**
 * A setting's environment variable: `MERIDIAN_TELEMETRY_<name>`, else (for drop-in use on
 * PANOPTES units) `PANOPTES_TELEMETRY_<name>`; with the variable's name for messages.
 * Only HOST, PORT and SITE_DIR have PANOPTES names (the original service has no token).
 */
export function fromEnv(env: Env, name: 'HOST' | 'PORT' | 'SITE_DIR'): { value: string; variable: string } | undefined {
  for (const variable of [`MERIDIAN_TELEMETRY_${name}`, `PANOPTES_TELEMETRY_${name}`]) {
    const value = nonEmpty(env[variable]);
    if (value !== undefined) return { value, variable };
  }
  return undefined;
}

/** `host:port` as written in URLs and messages (an IPv6 host in brackets). */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

// In `http://host:port/` the host is only a host: no port, path, user, query or fragment of its own.
function isPlainHost(host: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(addressUrl({ host, port }));
  } catch {
    return false;
  }
  return url.pathname === '/' && !url.username && (url.port || '80') === String(port) && !url.search && !url.hash;
}

/** `$XDG_DATA_HOME/meridian/telemetry`, else `~/.local/share/meridian/telemetry`. */
export function defaultSiteDir(env: Env, homeDir: string): string {
  const xdg = nonEmpty(env.XDG_DATA_HOME);
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(homeDir, '.local', 'share');
  return path.join(base, 'meridian', 'telemetry');
}

/** A TCP port: a whole number 1-65535, given as a number or a string of digits. */
export function parsePort(value: string | number, option = 'port'): number {
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    throw new ConfigError(option, 'a whole number from 1 to 65535', value);
  }
  return n;
}

/** An address the daemon may be reached at without a token: loopback names and ranges. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
    || h === '::ffff:127.0.0.1' || /^::ffff:127\./.test(h);
}

function resolveMaxAge(flag: string | undefined, env: Env): MaxAgeRules {
  if (flag !== undefined) return parseMaxAge(flag, '--max-age');
  const fromEnv = nonEmpty(env.MERIDIAN_TELEMETRY_MAX_AGE);
  return fromEnv === undefined ? Object.freeze([]) : parseMaxAge(fromEnv, 'MERIDIAN_TELEMETRY_MAX_AGE');
}

function parseFsync(value: string): FsyncMode {
  if (!(FSYNC_MODES as readonly string[]).includes(value)) {
    throw new ConfigError('--fsync', `one of ${FSYNC_MODES.join(', ')}`, value);
  }
  return value as FsyncMode;
}

function parseLogFormat(value: string): LogFormat {
  if (!(LOG_FORMATS as readonly string[]).includes(value)) throw new ConfigError('--log-format', `one of ${LOG_FORMATS.join(', ')}`, value);
  return value as LogFormat;
}

/** An age such as `2d` or `36h` (days or hours, a whole number, at least 1), in ms. */
export function parseAge(value: string, option: string): number {
  const match = /^\s*(\d+)\s*([dh])\s*$/.exec(String(value));
  const n = match ? Number(match[1]) : NaN;
  if (!match || !Number.isSafeInteger(n) || n < 1) throw new ConfigError(option, 'an age in days or hours, such as 2d or 36h', value);
  const ms = n * (match[2] === 'd' ? 86_400_000 : 3_600_000);
  // past a hundred years the age names no file on any disk: a typo, not "never"
  if (ms > 36_500 * 86_400_000) throw new ConfigError(option, 'an age of at most 36500d (876000h)', value);
  return ms;
}

function parseMaxBody(value: string | number): number {
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_MAX_BODY) {
    throw new ConfigError('--max-body', `a whole number of bytes from 1 to ${MAX_MAX_BODY} (256 MiB)`, value);
  }
  return n;
}

function parseShutdownTimeout(value: string | number): number {
  const n = typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 3600) {
    throw new ConfigError('--shutdown-timeout', 'a number of seconds from 0 to 3600', value);
  }
  return Math.round(n * 1000);
}

function pickHost(flag: string | undefined, env: Env, flagName = '--host'): string {
  const fromVariable = fromEnv(env, 'HOST');
  const value = flag ?? fromVariable?.value ?? DEFAULT_HOST;
  // `localhost:7000` or `http://host` is a mistake the bind or the request would report less clearly
  if (value.trim() === '' || !isPlainHost(value, DEFAULT_PORT)) {
    throw new ConfigError(flag !== undefined ? flagName : fromVariable!.variable, 'a host name or address', value);
  }
  return value;
}

function pickPort(flag: string | number | undefined, option: string, env: Env): number {
  if (flag !== undefined) return parsePort(flag, option);
  const fromVariable = fromEnv(env, 'PORT');
  return fromVariable ? parsePort(fromVariable.value, fromVariable.variable) : DEFAULT_PORT;
}

/** A yes/no environment variable: 1/true/yes/on or 0/false/no/off (any case); unset or empty is no. */
function parseSwitch(value: string | undefined, variable: string): boolean {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '' || v === '0' || v === 'false' || v === 'no' || v === 'off') return false;
  if (v === '1' || v === 'true' || v === 'yes' || v === 'on') return true;
  throw new ConfigError(variable, 'one of 1, true, yes, on, 0, false, no, off', value);
}

// An empty flag is a mistake (`--site-dir ""` would mean the working directory), not "unset".
function nonEmptyFlag(value: string | undefined, option: string, expected: string): string | undefined {
  if (value !== undefined && value.trim() === '') throw new ConfigError(option, expected, value);
  return value;
}

function resolveZone(tz: string | undefined): { zone: string; zoneWarning: string | undefined } {
  // Judge the TZ given (not the process's own zone), so the resolver depends on its inputs only.
  if (tz === undefined || tz === '') return { zone: 'system', zoneWarning: undefined };
  const name = tz.startsWith(':') ? tz.slice(1) : tz;
  if (IANAZone.isValidZone(name)) return { zone: name, zoneWarning: undefined };
  return { zone: 'utc', zoneWarning: `TZ=${JSON.stringify(tz)} is not a known time zone; site days follow UTC` };
}

function text(value: unknown): string | undefined {
  return value === undefined ? undefined : String(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
