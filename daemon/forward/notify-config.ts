import { tablesOf, type ConfigTable } from '../../lib/config-file.js';
import { ConfigError } from '../../lib/errors.js';
import { createHash } from 'node:crypto';
import { sinkOf } from './config.js';
import type { HttpSinkSpec, NotifyFormat } from './sink.js';

// `[[notify]]` tables: where escalations go. Each is an HTTP sink of the forwarding machinery
// (its own durable cursor, retries, dead letters) that sends only `meridian.escalation`
// records, one POST per record (docs/alarms.md "Escalation"). It starts at the end of the log
// the first time (a new webhook is not sent the escalations of last year).

type Env = Readonly<Record<string, string | undefined>>;

const FORMATS: readonly NotifyFormat[] = ['json', 'ntfy', 'slack'];
// the sink settings a webhook may set; batching and ephemeral events mean nothing here
const KEYS = ['name', 'url', 'format', 'timeout_ms', 'retry_min_ms', 'retry_max_ms', 'failing_after_s', 'headers', 'header_env'];

/** The `[[notify]]` sinks of the config file, checked (`where` names the file). */
export function resolveNotify(doc: ConfigTable, where: string, env: Env): HttpSinkSpec[] {
  return tablesOf(doc, 'notify', where).map((t, i) => notifyOf(t, `${where}: notify ${i + 1}`, env));
}

function notifyOf(t: ConfigTable, where: string, env: Env): HttpSinkSpec {
  const unknown = Object.keys(t).find((k) => !KEYS.includes(k));
  if (unknown) throw new ConfigError(`${where}: ${unknown}`, `a known key of a [[notify]] table (${KEYS.join(', ')})`, unknown);
  const format = t.format ?? 'json';
  if (typeof format !== 'string' || !(FORMATS as readonly string[]).includes(format)) {
    throw new ConfigError(`${where} format`, '"json", "ntfy" or "slack"', format);
  }
  const { format: _format, ...rest } = t;
  let name = typeof t.name === 'string' ? t.name : undefined;
  if (name === undefined && typeof t.url === 'string' && URL.canParse(t.url)) name = webhookName(new URL(t.url));
  const spec = sinkOf({ ...rest, ...(name === undefined ? {} : { name }), start: 'end', ephemeral: false }, where, env);
  if (spec.kind !== 'http') throw new ConfigError(`${where} url`, 'an http:// or https:// URL', spec.url);
  return { ...spec, batchRecords: 100, lingerMs: 0, notify: format as NotifyFormat };
}

/**
 * The name of a webhook without one: `notify-<scheme>-<host>-<port>-<hash>`, the hash the first
 * 8 hex digits of the URL's SHA-256. Never its path or query (a webhook's secret: the name is in
 * /status, /metrics, the log and the cursor's file name); the hash keeps two hooks of one host
 * apart. A URL changed gets a new name, so a new cursor: a `name` keeps the old one.
 */
export function webhookName(url: URL): string {
  const hash = createHash('sha256').update(url.href).digest('hex').slice(0, 8);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  // a long host name is cut, never the hash
  const where = `notify-${url.protocol.replace(':', '')}-${url.hostname}-${port}`.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64 - 9);
  return `${where}-${hash}`;
}
