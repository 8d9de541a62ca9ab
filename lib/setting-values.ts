import net from 'node:net';
import path from 'node:path';
import { ConfigError } from './errors.js';
import { canonicalHost } from './host-name.js';
import { wholeNumberIn } from './whole-number.js';
import { UNIT_MS, unitMs } from './time-units.js';

// The values of settings: defaults, and one parser per kind of value. Each parser names the
// option or variable it read (`name`) in its ConfigError: what was expected, what was given.

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

type Env = Readonly<Record<string, string | undefined>>;

/** `host:port` as written in URLs and messages (an IPv6 host in brackets). */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/** The base URL of a resolved address, `http://host:port` (what a client is handed as `baseUrl`). */
export function addressUrl(address: { host: string; port: number }): string {
  return `http://${hostPort(address.host, address.port)}`;
}

/** `$XDG_DATA_HOME/meridian/telemetry`, else `~/.local/share/meridian/telemetry`. */
export function defaultSiteDir(env: Env, homeDir: string): string {
  const xdg = nonEmpty(env.XDG_DATA_HOME);
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(homeDir, '.local', 'share');
  return path.join(base, 'meridian', 'telemetry');
}

/** A TCP port: a whole number 1-65535, given as a number or a string of digits. */
export function parsePort(value: string | number, option = 'port'): number {
  const n = wholeNumberIn(value, 1, 65535);
  if (n === undefined) throw new ConfigError(option, 'a whole number from 1 to 65535', value);
  return n;
}

/** A host to bind or to reach: a plain name or address (no port, path or user: `localhost:7000` is a mistake). */
export function parseHost(value: string, name: string): string {
  // surrounding blanks dropped, as for the port
  const host = value.trim();
  if (host === '' || !isPlainHost(host, DEFAULT_PORT)) throw new ConfigError(name, 'a host name or address', value);
  return host;
}

/** An address the daemon may be reached at without a token: loopback names and ranges. */
export function isLoopbackHost(host: string): boolean {
  // one spelling first: `LOCALHOST.`, `[0:0::1]`, `::ffff:127.0.0.1`
  const h = canonicalHost(host) ?? host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
    || h === '::ffff:127.0.0.1' || /^::ffff:127\./.test(h);
}

/** What an error shows in place of a secret's value (a token, a header value). */
export const NOT_SHOWN = '(not shown)';

/**
 * A bearer token: surrounding whitespace dropped (a header value cannot carry it), then
 * visible ASCII without spaces (RFC 7235 credentials). A value of whitespace only is no
 * token, from the flag or the variable alike (issue 22: an EnvironmentFile line `TOKEN= `
 * sets none; a daemon bound beyond loopback then refuses to start without one, so nothing
 * is opened by it). An error never shows the value.
 */
export function parseToken(value: string, name: string, _fromVariable: boolean): string | undefined {
  const token = value.trim();
  if (token === '') return undefined;
  if (!/^[\x21-\x7e]+$/.test(token)) throw new ConfigError(name, 'a token of visible ASCII characters without spaces', NOT_SHOWN);
  return token;
}

/** Host names separated by commas (`obs1,obs1.example.org,192.0.2.7`), canonical (lib/host-name.ts). */
export function parseHostList(value: string, name: string): readonly string[] {
  const expected = 'host names or addresses separated by commas (obs1,obs1.example.org,192.0.2.7)';
  if (value.trim() === '') throw new ConfigError(name, expected, value);
  const names = value.split(',').map((item) => {
    const host = listedHost(item.trim());
    if (host === undefined) throw new ConfigError(name, `${expected}; ${JSON.stringify(item.trim())} is not one`, value);
    return host;
  });
  return Object.freeze([...new Set(names)]);
}

/**
 * One entry of a host list, canonical; undefined unless it is an IPv6 or IPv4 address or a DNS
 * name (labels of letters, digits, `-` and `_`, none empty, the last not all digits): no
 * wildcard, no `.example.org`, no `999.1.1.1`, which no client would send as its Host.
 */
function listedHost(item: string): string | undefined {
  const host = canonicalHost(item);
  if (host === undefined || host.includes(':') || net.isIPv4(host)) return host;
  const labels = host.split('.');
  const named = labels.every((label) => /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/.test(label)) && !/^\d+$/.test(labels.at(-1)!);
  return named ? host : undefined;
}

/** One of `choices`. */
export function parseChoice<T extends string>(value: string, name: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) throw new ConfigError(name, `one of ${choices.join(', ')}`, value);
  return value as T;
}

/** An age such as `2d` or `36h` (days or hours, a whole number, at least 1), in ms. */
export function parseAge(value: string, option: string): number {
  const match = /^\s*(\d+)\s*([dh])\s*$/.exec(String(value));
  const n = match ? Number(match[1]) : NaN;
  if (!match || !Number.isSafeInteger(n) || n < 1) throw new ConfigError(option, 'an age in days or hours, such as 2d or 36h', value);
  const ms = n * unitMs(match[2]!);
  // past a hundred years the age names no file on any disk: a typo, not "never"
  if (ms > 36_500 * UNIT_MS.d) throw new ConfigError(option, 'an age of at most 36500d (876000h)', value);
  return ms;
}

/** An age in ms as parseAge reads it back: whole days as `<n>d`, else hours. */
export function formatAge(ms: number): string {
  return ms % UNIT_MS.d === 0 ? `${ms / UNIT_MS.d}d` : `${ms / UNIT_MS.h}h`;
}

/** --max-body: whole bytes from 1 to MAX_MAX_BODY. */
export function parseMaxBody(value: string | number, name: string): number {
  const n = wholeNumberIn(value, 1, MAX_MAX_BODY);
  if (n === undefined) throw new ConfigError(name, `a whole number of bytes from 1 to ${MAX_MAX_BODY} (256 MiB)`, value);
  return n;
}

/** --shutdown-timeout: seconds from 0 to 3600 (decimals allowed), in ms. */
export function parseShutdownTimeout(value: string | number, name: string): number {
  const n = typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 3600) {
    throw new ConfigError(name, 'a number of seconds from 0 to 3600', value);
  }
  return Math.round(n * 1000);
}

/** A yes/no environment variable: 1/true/yes/on or 0/false/no/off (any case); empty is no. */
export function parseSwitch(value: string, variable: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === '' || v === '0' || v === 'false' || v === 'no' || v === 'off') return false;
  if (v === '1' || v === 'true' || v === 'yes' || v === 'on') return true;
  throw new ConfigError(variable, 'one of 1, true, yes, on, 0, false, no, off', value);
}

/** An environment value, undefined when unset or empty. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
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

// a unit id: one MQTT topic level, a database key, a file-name-safe word
const UNIT_ID = /^[A-Za-z0-9._-]{1,64}$/;
const UNIT_ID_EXPECTED = '1-64 letters, digits, ".", "_" or "-" (not "." or "..")';

/** A unit id as given (`--unit-id`): kept as spelled, 1-64 of letters, digits, `.`, `_`, `-`. */
export function parseUnitId(value: string, name: string): string {
  const id = value.trim();
  if (!UNIT_ID.test(id) || id === '.' || id === '..') throw new ConfigError(name, UNIT_ID_EXPECTED, value);
  return id;
}

/**
 * The default unit id: the host name in lower case (host names are case-insensitive), its
 * first label when the whole name is longer than a unit id may be, other characters as `-`
 * (a daemon never refuses to start for its host name; docs/configuration.md). An empty name
 * gives `localhost`.
 */
export function unitIdOfHost(hostName: string): string {
  const host = hostName.trim().toLowerCase().replace(/\.$/, '');
  const id = (host.length > 64 ? host.split('.')[0]! : host).replace(/[^a-z0-9._-]/g, '-').slice(0, 64);
  return UNIT_ID.test(id) && id !== '.' && id !== '..' ? id : 'localhost';
}
