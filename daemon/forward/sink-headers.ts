import http from 'node:http';
import { ConfigError } from '../../lib/errors.js';

// The extra request headers of an HTTP sink (`headers`, and `header_env` whose values come
// from environment variables), checked at start: a name that is an HTTP token, a value
// without CR, LF or other characters HTTP forbids (a header could otherwise smuggle more
// headers or a request), no header that decides the request's framing or its host, each once.
// Values are never quoted in an error: they are secrets (authorization).

type Env = Readonly<Record<string, string | undefined>>;

// set by the sink or by HTTP itself: an extra one would break the request or send it elsewhere
const RESERVED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection']);

/** The headers of an HTTP sink's table `t` (`where` names it in errors), values read from `env` for `header_env`. */
export function headersOf(t: Record<string, unknown>, where: string, env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [key, fromEnv] of [['headers', false], ['header_env', true]] as const) {
    const table = t[key] ?? {};
    if (typeof table !== 'object' || table === null || Array.isArray(table)) throw new ConfigError(`${where} ${key}`, 'a table of header = "text"', shape(table));
    for (const [header, value] of Object.entries(table)) {
      const option = `${where} ${key}.${header}`;
      if (typeof value !== 'string') throw new ConfigError(option, 'a string', shape(value));
      checkName(option, header, seen);
      const text = fromEnv ? fromVariable(option, value, env) : value;
      checkValue(option, text, fromEnv ? `the value of ${value}` : 'the value');
      out[header] = text;
    }
  }
  return out;
}

// the value of `header_env`'s variable `name`: an empty value in `headers` is legal HTTP, but an
// empty variable is a secret that was not given
function fromVariable(option: string, name: string, env: Env): string {
  const text = env[name];
  if (text === undefined) throw new ConfigError(option, `the name of a set environment variable (${name} is not set)`, name);
  if (text === '') throw new ConfigError(option, `the name of an environment variable holding the header value (${name} is set but empty)`, name);
  return text;
}

function checkName(option: string, header: string, seen: Set<string>): void {
  try {
    http.validateHeaderName(header);
  } catch {
    throw new ConfigError(option, 'a header name of letters, digits and !#$%&\'*+-.^_`|~ only', header);
  }
  const lower = header.toLowerCase();
  if (RESERVED.has(lower)) throw new ConfigError(option, 'a header the sink does not set itself (not Host, Content-Length, Transfer-Encoding, Connection, ...)', header);
  if (seen.has(lower)) throw new ConfigError(option, 'given once (headers and header_env name it twice, in any case)', header);
  seen.add(lower);
}

function checkValue(option: string, text: string, what: string): void {
  try {
    http.validateHeaderValue('x', text);
  } catch {
    const bad = [...text].find((c) => /[\u0000-\u0008\u000a-\u001f\u007f]/.test(c) || c.codePointAt(0)! > 0xff);
    const named = bad === undefined ? 'a character HTTP forbids' : `U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    throw new ConfigError(option, `a header value without CR, LF or other control characters (${what}, not shown, holds ${named})`, '(not shown)');
  }
}

// a value in an error: its kind, never its text (it may be a secret)
function shape(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
}
