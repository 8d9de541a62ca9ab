import path from 'node:path';
import { ConfigError } from './errors.js';
import { formatMaxAge, parseMaxAge, type MaxAgeRules } from './max-age.js';
import {
  DEFAULT_HOST, DEFAULT_MAX_BODY, DEFAULT_PORT, DEFAULT_SHUTDOWN_TIMEOUT_S, defaultSiteDir, FSYNC_MODES, formatAge, LOG_FORMATS,
  parseAge, parseChoice, parseHost, parseHostList, parseMaxBody, parsePort, parseShutdownTimeout, parseSwitch, parseToken, parseUnitId, unitIdOfHost,
  type FsyncMode, type LogFormat,
} from './setting-values.js';

// The one settings table: a row per daemon setting (flag, variables, default, parse, help).
// The resolver (lib/config.ts), the options of `telemetry run` and its --help
// (cli/program.ts), the CLI's option lists (cli/options.ts), `run`'s flags (cli/run.ts) and
// the launcher's argv (launcher/launcher.ts) are all derived from it: a new setting is one
// row here, one field of DaemonConfig and its line in docs/configuration.md.

/** Everything the daemon needs to know, resolved and frozen. */
export interface DaemonConfig {
  readonly host: string;
  readonly port: number;
  readonly siteDir: string;
  readonly token: string | undefined;
  /** Start on a non-loopback address without a token (a PANOPTES unit on a private network). */
  readonly allowUnauthenticated: boolean;
  /** Host names and addresses (canonical, lib/host-name.ts) a request's `Host` may name besides the bind host and loopback names. */
  readonly allowedHosts: readonly string[];
  readonly fsync: FsyncMode;
  /** How old a reading of each type may be (`--max-age`); empty: nothing is ever stale. */
  readonly maxAge: MaxAgeRules;
  readonly maxBody: number;
  /** How long a stop waits for requests in flight (ms) before closing their connections. */
  readonly shutdownTimeoutMs: number;
  readonly verbose: boolean;
  readonly accessLogs: boolean;
  readonly logFormat: LogFormat;
  /** Gzip closed day files and stopped runs' files older than this (ms); undefined: never. */
  readonly compressAfterMs: number | undefined;
  /** Delete closed day files and stopped runs' files older than this (ms); undefined: keep all. */
  readonly retainMs: number | undefined;
  /** This unit's name in every forwarded record (`--unit-id`; default: the host name in lower case). */
  readonly unitId: string;
  /** Keep the rollup tiers (`--rollups on|off`, docs/rollups.md). */
  readonly rollups: boolean;
  /** The luxon zone of the site day: the zone TZ names, "system" when TZ is unset, "utc" when TZ is invalid. */
  readonly zone: string;
  /** Set when TZ named an unknown zone: the warning to log at start-up. */
  readonly zoneWarning: string | undefined;
}

/** Raw daemon options as flags give them (strings or numbers, all optional); keys are the flags in camelCase. */
export interface DaemonFlags {
  host?: string;
  port?: string | number;
  siteDir?: string;
  token?: string;
  allowUnauthenticated?: boolean;
  /** Names separated by commas. */
  allowedHosts?: string;
  fsync?: string;
  maxAge?: string;
  maxBody?: string | number;
  /** Seconds (`--shutdown-timeout`). */
  shutdownTimeout?: string | number;
  verbose?: boolean;
  accessLogs?: boolean;
  logFormat?: string;
  compressAfter?: string;
  retain?: string;
  unitId?: string;
  rollups?: string;
}

/** A value as given: the flag's or variable's name (for messages) and its raw value. */
export interface Given {
  readonly value: string | number | boolean;
  readonly name: string;
  readonly fromVariable: boolean;
}

/** What a row may read besides its value: the environment and the home directory (for defaults). */
export interface SettingContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
  /** This machine's host name (the default unit id). */
  readonly hostName: string;
}

/** One daemon setting. */
export interface DaemonSetting {
  /** Its key in DaemonFlags (and in the launcher's options): the flag in camelCase. */
  readonly key: keyof DaemonFlags;
  readonly flag: `--${string}`;
  /** Its environment variables, the first set (and not empty) wins; none: flag or default only. */
  readonly variables: readonly string[];
  /** A value option, or a switch (never swallows the next word). */
  readonly kind: 'value' | 'switch';
  /** What it does, for --help (the variable and default are added). */
  readonly about: string;
  /** The default as --help says it; undefined: none. */
  readonly defaultText: string | undefined;
  /** Handed to a launched child in its environment (a secret), not on its command line. */
  readonly secret?: boolean;
  /** The config fields it sets, from the value given (undefined: not given). */
  resolve(given: Given | undefined, context: SettingContext): Partial<DaemonConfig>;
  /** The words that give a child daemon this resolved value ([] when the default does). */
  argv(config: DaemonConfig): string[];
}

const text = (given: Given | undefined) => (given === undefined ? undefined : String(given.value));

/** Every daemon setting, in the order of `telemetry run --help`. */
export const DAEMON_SETTINGS: readonly DaemonSetting[] = [
  {
    key: 'host', flag: '--host', variables: ['MERIDIAN_TELEMETRY_HOST', 'PANOPTES_TELEMETRY_HOST'], kind: 'value',
    about: 'Address to bind', defaultText: DEFAULT_HOST,
    resolve: (g) => ({ host: parseHost(text(g) ?? DEFAULT_HOST, g?.name ?? '--host') }),
    argv: (c) => ['--host', c.host],
  },
  {
    key: 'port', flag: '--port', variables: ['MERIDIAN_TELEMETRY_PORT', 'PANOPTES_TELEMETRY_PORT'], kind: 'value',
    about: 'Port to listen on', defaultText: String(DEFAULT_PORT),
    resolve: (g) => ({ port: g === undefined ? DEFAULT_PORT : parsePort(g.value as string | number, g.name) }),
    argv: (c) => ['--port', String(c.port)],
  },
  {
    key: 'siteDir', flag: '--site-dir', variables: ['MERIDIAN_TELEMETRY_SITE_DIR', 'PANOPTES_TELEMETRY_SITE_DIR'], kind: 'value',
    about: 'Where telemetry files live', defaultText: '$XDG_DATA_HOME/meridian/telemetry',
    resolve: (g, { env, homeDir }) => {
      // an empty flag is a mistake (`--site-dir ""` would mean the working directory), not "unset"
      if (g && !g.fromVariable && String(g.value).trim() === '') throw new ConfigError(g.name, 'a directory path', g.value);
      return { siteDir: path.resolve(text(g) ?? defaultSiteDir(env, homeDir)) };
    },
    argv: (c) => ['--site-dir', c.siteDir],
  },
  {
    key: 'token', flag: '--token', variables: ['MERIDIAN_TELEMETRY_TOKEN'], kind: 'value', secret: true,
    about: 'Require this bearer token', defaultText: undefined,
    resolve: (g) => ({ token: g === undefined ? undefined : parseToken(String(g.value), g.name, g.fromVariable) }),
    argv: () => [],
  },
  {
    key: 'allowUnauthenticated', flag: '--allow-unauthenticated', variables: ['MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED'], kind: 'switch',
    about: 'Bind a non-loopback --host without a token', defaultText: undefined,
    resolve: (g) => ({ allowUnauthenticated: g !== undefined && (g.fromVariable ? parseSwitch(String(g.value), g.name) : g.value === true) }),
    argv: (c) => (c.allowUnauthenticated ? ['--allow-unauthenticated'] : []),
  },
  {
    key: 'allowedHosts', flag: '--allowed-hosts', variables: ['MERIDIAN_TELEMETRY_ALLOWED_HOSTS'], kind: 'value',
    about: 'More names clients may reach the daemon by, comma-separated (this machine\'s host name, FQDN, <hostname>.local and addresses are always accepted)',
    defaultText: undefined,
    resolve: (g) => ({ allowedHosts: g === undefined ? Object.freeze([]) : parseHostList(String(g.value), g.name) }),
    argv: (c) => (c.allowedHosts.length > 0 ? ['--allowed-hosts', c.allowedHosts.join(',')] : []),
  },
  {
    key: 'fsync', flag: '--fsync', variables: [], kind: 'value', about: 'Durability: always, batch or off', defaultText: 'batch',
    resolve: (g) => ({ fsync: parseChoice(text(g) ?? 'batch', g?.name ?? '--fsync', FSYNC_MODES) }),
    argv: (c) => ['--fsync', c.fsync],
  },
  {
    key: 'maxAge', flag: '--max-age', variables: ['MERIDIAN_TELEMETRY_MAX_AGE'], kind: 'value',
    about: 'When readings turn stale, in seconds per type: weather=180,power=90,camera.*=300,*=600', defaultText: 'none: never',
    resolve: (g) => ({ maxAge: g === undefined ? Object.freeze([]) : parseMaxAge(String(g.value), g.name) }),
    argv: (c) => (c.maxAge.length > 0 ? ['--max-age', formatMaxAge(c.maxAge)] : []),
  },
  {
    key: 'maxBody', flag: '--max-body', variables: [], kind: 'value',
    about: 'Largest request body in bytes, at most 268435456', defaultText: String(DEFAULT_MAX_BODY),
    resolve: (g) => ({ maxBody: parseMaxBody((g?.value as string | number | undefined) ?? DEFAULT_MAX_BODY, g?.name ?? '--max-body') }),
    argv: (c) => ['--max-body', String(c.maxBody)],
  },
  {
    key: 'shutdownTimeout', flag: '--shutdown-timeout', variables: [], kind: 'value',
    about: 'Seconds a stop waits for requests in flight before closing their connections', defaultText: String(DEFAULT_SHUTDOWN_TIMEOUT_S),
    resolve: (g) => ({
      shutdownTimeoutMs: parseShutdownTimeout((g?.value as string | number | undefined) ?? DEFAULT_SHUTDOWN_TIMEOUT_S, g?.name ?? '--shutdown-timeout'),
    }),
    argv: (c) => ['--shutdown-timeout', String(c.shutdownTimeoutMs / 1000)],
  },
  {
    key: 'verbose', flag: '--verbose', variables: [], kind: 'switch', about: 'Debug logging: one line per incoming event', defaultText: undefined,
    resolve: (g) => ({ verbose: g?.value === true }),
    argv: (c) => (c.verbose ? ['--verbose'] : []),
  },
  {
    key: 'accessLogs', flag: '--access-logs', variables: [], kind: 'switch', about: 'Log one line per request', defaultText: undefined,
    resolve: (g) => ({ accessLogs: g?.value === true }),
    argv: (c) => (c.accessLogs ? ['--access-logs'] : []),
  },
  {
    key: 'logFormat', flag: '--log-format', variables: [], kind: 'value', about: 'Log lines as text or json (one object per line)', defaultText: 'text',
    resolve: (g) => ({ logFormat: parseChoice(text(g) ?? 'text', g?.name ?? '--log-format', LOG_FORMATS) }),
    argv: (c) => ['--log-format', c.logFormat],
  },
  {
    key: 'compressAfter', flag: '--compress-after', variables: [], kind: 'value',
    about: 'Gzip closed day files and stopped runs older than this age, e.g. 2d or 36h', defaultText: 'never',
    resolve: (g) => ({ compressAfterMs: g === undefined ? undefined : parseAge(String(g.value), g.name) }),
    argv: (c) => (c.compressAfterMs === undefined ? [] : ['--compress-after', formatAge(c.compressAfterMs)]),
  },
  {
    key: 'retain', flag: '--retain', variables: [], kind: 'value',
    about: 'Delete closed day files and stopped runs older than this age, e.g. 365d', defaultText: 'keep all',
    resolve: (g) => ({ retainMs: g === undefined ? undefined : parseAge(String(g.value), g.name) }),
    argv: (c) => (c.retainMs === undefined ? [] : ['--retain', formatAge(c.retainMs)]),
  },
  {
    key: 'unitId', flag: '--unit-id', variables: ['MERIDIAN_TELEMETRY_UNIT_ID'], kind: 'value',
    about: 'This unit\'s name in every forwarded record: 1-64 letters, digits, ".", "_" or "-"', defaultText: 'the host name in lower case',
    resolve: (g, { hostName }) => ({ unitId: g === undefined ? unitIdOfHost(hostName) : parseUnitId(String(g.value), g.name) }),
    argv: (c) => ['--unit-id', c.unitId],
  },
  {
    key: 'rollups', flag: '--rollups', variables: [], kind: 'value', about: 'Keep the rollup tiers (1m, 15m, 1h, night) of numeric fields: on or off', defaultText: 'on',
    resolve: (g) => ({ rollups: parseChoice(text(g) ?? 'on', g?.name ?? '--rollups', ON_OFF) === 'on' }),
    argv: (c) => (c.rollups ? [] : ['--rollups', 'off']),
  },
];

const ON_OFF = ['on', 'off'] as const;

/** The --help line of a setting: what it does, its variable and its default. */
export function settingHelp(setting: DaemonSetting): string {
  const notes = [setting.variables[0] && `env ${setting.variables[0]}`, setting.defaultText && `default ${setting.defaultText}`].filter(Boolean);
  return notes.length === 0 ? setting.about : `${setting.about} (${notes.join('; ')})`;
}

/** The value of a setting as given: its flag (a switch only when true), else its first variable set and not empty. */
export function givenValue(setting: DaemonSetting, flags: DaemonFlags, env: SettingContext['env']): Given | undefined {
  const flag = flags[setting.key];
  if (flag !== undefined && (setting.kind === 'value' || flag === true)) return { value: flag, name: setting.flag, fromVariable: false };
  for (const variable of setting.variables) {
    const value = env[variable];
    if (value !== undefined && value !== '') return { value, name: variable, fromVariable: true };
  }
  return undefined;
}

/** The command-line words that give a child daemon `config` (secrets excluded: they travel in its environment). */
export function settingsArgv(config: DaemonConfig): string[] {
  return DAEMON_SETTINGS.flatMap((setting) => setting.argv(config));
}
