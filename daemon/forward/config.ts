import { parseConfigFile, tablesOf, type ConfigTable } from '../../lib/config-file.js';
import { ConfigError } from '../../lib/errors.js';
import { isTableName } from './postgres-schema.js';
import { libpqUrl } from './postgres-url.js';
import { redactUrlText } from './secrets.js';
import { headersOf } from './sink-headers.js';
import type { SinkCommon, SinkKind, SinkSpec } from './sink.js';
import { wholeNumberIn } from '../../lib/whole-number.js';

// Forwarding settings: `--forward URL` (repeatable, every option at its default) and
// `--config FILE` (TOML, one [[sink]] table per sink). Secrets are named by environment
// variable (`password_env`, `[sink.header_env]`), never written in the file or logged. Every
// number is bounded (its range is in docs/forwarding.md), so no timer overflows.

type Env = Readonly<Record<string, string | undefined>>;
type Table = Record<string, unknown>;

const SCHEMES: Record<string, SinkKind> = {
  'mqtt:': 'mqtt', 'mqtts:': 'mqtt', 'postgres:': 'postgres', 'postgresql:': 'postgres', 'http:': 'http', 'https:': 'http',
};
const SAFE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const COMMON_KEYS = ['name', 'url', 'batch_records', 'batch_bytes', 'linger_ms', 'retry_min_ms', 'retry_max_ms', 'failing_after_s', 'timeout_ms', 'start'];
// Upper bounds: a sane operator's longest (a timer of 2^31 ms or more fires after 1 ms in
// Node: a sink that never delivers, or retries in a hot loop), documented in docs/forwarding.md
const HOUR_MS = 3_600_000;
const MAX = { lingerMs: 60_000, retryMs: HOUR_MS, timeoutMs: 600_000, failingAfterS: 7 * 86_400, batchBytes: 64 * 1024 * 1024 };
// what pg reads from a postgres:// URL's query besides connection settings; any other (timeouts
// such as query_timeout, which pg would pass to a timer unchecked) is refused: use timeout_ms
const PG_URL_PARAMS = ['sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'sslpassword', 'ssl', 'application_name', 'options', 'host', 'user', 'password', 'client_encoding', 'uselibpqcompat'];
const KIND_KEYS: Record<SinkKind, string[]> = {
  mqtt: ['prefix', 'username', 'password_env', 'retain_current', 'unit_topic', 'clash_check', 'ephemeral', 'ephemeral_queue'],
  postgres: ['table', 'password_env', 'ephemeral'],
  http: ['headers', 'header_env', 'ephemeral', 'ephemeral_queue'],
};

/**
 * The sinks of `--config FILE` (its text given, or its parsed document: lib/config-file.ts) and
 * of each `--forward URL`, checked.
 */
export function resolveSinks(input: { configText?: string; configDoc?: ConfigTable; configFile?: string; forward?: readonly string[] }, env: Env): SinkSpec[] {
  const sinks: SinkSpec[] = [];
  const where = input.configFile ?? 'the config file';
  const doc = input.configDoc ?? (input.configText === undefined ? undefined : parseConfigFile(input.configText, where));
  if (doc !== undefined) tablesOf(doc, 'sink', where).forEach((t, i) => sinks.push(sinkOf(t, `${where}: sink ${i + 1}`, env)));
  for (const url of input.forward ?? []) sinks.push(sinkOf({ url }, '--forward', env));
  const seen = new Set<string>();
  for (const s of sinks) {
    if (seen.has(s.name)) throw new ConfigError('sink name', 'unique across sinks (it names the cursor file)', s.name);
    seen.add(s.name);
  }
  return sinks;
}

/** One sink's table checked (`where` names it in errors: `f.toml: sink 2`). */
export function sinkOf(t: Table, where: string, env: Env): SinkSpec {
  const url = str(t, 'url', where, undefined);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${where} url`, 'an mqtt://, postgres:// or http(s):// URL', redactUrlText(url));
  }
  const kind = SCHEMES[parsed.protocol];
  if (!kind) throw new ConfigError(`${where} url`, 'an mqtt://, mqtts://, postgres://, http:// or https:// URL', redactUrlText(url));
  const param = kind === 'postgres' ? [...parsed.searchParams.keys()].find((k) => !PG_URL_PARAMS.includes(k)) : undefined;
  if (param !== undefined) throw new ConfigError(`${where} url`, `without the query parameter ${param} (the URL may carry ${PG_URL_PARAMS.join(', ')}; timeouts are timeout_ms)`, redactUrlText(url));
  const unknown = Object.keys(t).find((k) => !COMMON_KEYS.includes(k) && !KIND_KEYS[kind].includes(k));
  if (unknown) throw new ConfigError(`${where}: ${unknown}`, `a known key for a ${kind} sink (see docs/forwarding.md)`, unknown);
  const name = str(t, 'name', where, derivedName(kind, parsed));
  if (!SAFE_NAME.test(name)) throw new ConfigError(`${where} name`, '1-64 letters, digits, ".", "_" or "-"', name);
  const start = str(t, 'start', where, 'beginning');
  if (start !== 'beginning' && start !== 'end') throw new ConfigError(`${where} start`, '"beginning" or "end"', start);
  const retryMin = int(t, 'retry_min_ms', where, 250, 1, MAX.retryMs);
  const common: SinkCommon = {
    name, kind, url, start,
    batchRecords: int(t, 'batch_records', where, 500, 1, 100_000),
    batchBytes: int(t, 'batch_bytes', where, 1024 * 1024, 1024, MAX.batchBytes),
    lingerMs: int(t, 'linger_ms', where, 100, 0, MAX.lingerMs),
    retry: { minMs: retryMin, maxMs: int(t, 'retry_max_ms', where, Math.max(30_000, retryMin), retryMin, MAX.retryMs) },
    failingAfterMs: Math.round(num(t, 'failing_after_s', where, 60, MAX.failingAfterS) * 1000),
    timeoutMs: int(t, 'timeout_ms', where, 10_000, 1, MAX.timeoutMs),
    ephemeral: bool(t, 'ephemeral', where, kind !== 'postgres'),
    ephemeralQueue: int(t, 'ephemeral_queue', where, 1000, 1, 100_000),
  };
  if (kind === 'postgres' && common.ephemeral) {
    throw new ConfigError(`${where} ephemeral`, 'false for a PostgreSQL sink (its table keeps durable events only; see docs/forwarding.md)', true);
  }
  const password = secret(t, where, env);
  if (kind === 'mqtt') {
    const prefix = str(t, 'prefix', where, 'meridian');
    if (prefix === '' || /[+#\u0000]/.test(prefix)) throw new ConfigError(`${where} prefix`, 'a topic without +, # or NUL', prefix);
    const retain = bool(t, 'retain_current', where, true);
    return {
      ...common, kind, prefix, username: t.username === undefined ? undefined : str(t, 'username', where, ''), password, retainCurrent: retain,
      unitTopic: bool(t, 'unit_topic', where, false), clashCheck: bool(t, 'clash_check', where, false),
    };
  }
  if (kind === 'postgres') {
    const table = str(t, 'table', where, 'meridian_events');
    if (!isTableName(table)) throw new ConfigError(`${where} table`, 'a lower-case name (letters, digits, _), optionally schema.table', table);
    libpqUrl(url, `${where} url`); // its sslmode checked at start, not at each connection
    return { ...common, kind, table, password };
  }
  return { ...common, kind, headers: headersOf(t, where, env) };
}

/** The name of a sink without one: --forward mqtt://broker:1883 -> mqtt-broker-1883 (stable, so the cursor is found again). */
export function derivedName(kind: SinkKind, url: URL): string {
  const words = [kind, url.hostname, url.port, ...url.pathname.split('/')].filter((w) => w !== '');
  return words.join('-').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
}

function secret(t: Table, where: string, env: Env): string | undefined {
  if (t.password_env === undefined) return undefined;
  const name = str(t, 'password_env', where, '');
  const value = env[name];
  if (value === undefined) throw new ConfigError(`${where} password_env`, `the name of a set environment variable (${name} is not set)`, name);
  if (value === '') throw new ConfigError(`${where} password_env`, `the name of an environment variable holding the password (${name} is set but empty)`, name);
  return value;
}

function str(t: Table, key: string, where: string, fallback: string | undefined): string {
  const v = t[key];
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'string') throw new ConfigError(`${where} ${key}`, 'a string', v ?? '(missing)');
  return v;
}

function bool(t: Table, key: string, where: string, fallback: boolean): boolean {
  const v = t[key] ?? fallback;
  if (typeof v !== 'boolean') throw new ConfigError(`${where} ${key}`, 'true or false', v);
  return v;
}

function num(t: Table, key: string, where: string, fallback: number, max: number): number {
  const v = t[key] ?? fallback;
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > max) throw new ConfigError(`${where} ${key}`, `a number from 0 to ${max}`, n);
  return n;
}

function int(t: Table, key: string, where: string, fallback: number, min: number, max: number): number {
  const v = t[key] ?? fallback;
  const n = typeof v === 'string' ? undefined : wholeNumberIn(v, min, max);
  if (n === undefined) throw new ConfigError(`${where} ${key}`, `a whole number from ${min} to ${max}`, typeof v === 'bigint' ? Number(v) : v);
  return n;
}
