import type { SinkSpec } from './sink.js';

// Keeping a sink's secrets (its password, header values, URL userinfo, a password in the URL's
// query, a webhook's path) out of everything the daemon shows: /status, /metrics, logs, dead letters and start
// errors. The client libraries (pg, mqtt.js, got) may quote the URL or echo a header in their
// errors: every error leaving a sink passes through its scrubber (lazy-sink.ts).

// query parameters that carry a secret (pg reads `password` and `sslpassword` from the URL)
const SECRET_PARAM = /pass|secret|token|key|auth|sig/i;
// a header value shorter than this is no secret, and scrubbing it would garble messages
const SHORTEST_SECRET = 4;
// authorization schemes: public words, never secrets (RFC 9110 section 11)
const AUTH_SCHEMES = new Set(['basic', 'bearer', 'digest', 'negotiate', 'ntlm', 'token']);

/** A URL fit for logs and /status: a password (and in an http(s) URL the user, often a token) and secret query values shown as `***`. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return redactUrlText(url);
  }
  if (u.password) u.password = '***';
  if (u.username && /^https?:$/.test(u.protocol)) u.username = '***';
  for (const key of [...u.searchParams.keys()]) if (SECRET_PARAM.test(key)) u.searchParams.set(key, '***');
  // URLSearchParams.set percent-encodes: keep `***` readable
  return u.toString().replace(/%2A%2A%2A/g, '***');
}

/** A sink's URL as /status and the logs show it: redactUrl's, and a [[notify]] webhook's path as `/***` and every query value as `***` (chat and ntfy webhooks carry their secret in the path, others in the query). */
export function shownUrl(spec: SinkSpec): string {
  const shown = redactUrl(spec.url);
  if (!isWebhook(spec)) return shown;
  try {
    const u = new URL(shown);
    if (u.pathname !== '/') u.pathname = '/***';
    // and every value of its query (`?code=` of an Azure function, `?k=`): not only the names that say secret
    for (const key of [...u.searchParams.keys()]) u.searchParams.set(key, '***');
    return u.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return shown;
  }
}

function isWebhook(spec: SinkSpec): boolean {
  return spec.kind === 'http' && spec.notify !== undefined;
}

/** Text that may be a URL the parser refused: any `//userinfo@` cut out, whatever follows a secret query key hidden. */
export function redactUrlText(text: string): string {
  return text.replace(/\/\/[^/?#]*@/, '//***@').replace(/([?&][^=&#]*(?:pass|secret|token|key|auth|sig)[^=&#]*=)[^&#]*/gi, '$1***');
}

/** Every secret text of a sink, as configured, as a URL carries it (percent-encoded) and as JSON escapes it, with each part of it (a token after `Bearer `, a key after `=`). */
export function secretsOf(spec: SinkSpec): string[] {
  const found = new Set<string>();
  const add = (s: string | undefined) => {
    if (s === undefined || s.length < SHORTEST_SECRET) return;
    found.add(s);
    found.add(encodeURIComponent(s));
    // as a JSON string writes it (a peer answering JSON escapes `"` and `\`)
    found.add(JSON.stringify(s).slice(1, -1));
  };
  // the whole value and each part of it: a peer may echo only the token after `Bearer `
  const addWithParts = (s: string | undefined) => {
    if (s === undefined) return;
    add(s);
    for (const part of partsOf(s)) {
      add(part);
      for (const decoded of base64Texts(part)) add(decoded);
    }
  };
  if (spec.kind !== 'http') addWithParts(spec.password);
  if (spec.kind === 'http') for (const value of Object.values(spec.headers)) addWithParts(value);
  try {
    const u = new URL(spec.url);
    for (const raw of [u.password, spec.kind === 'http' ? u.username : '']) {
      if (raw === '') continue;
      found.add(raw);
      addWithParts(safeDecode(raw));
    }
    // got sends an http(s) URL's userinfo as Basic authorization, which a peer may echo
    if (spec.kind === 'http' && (u.username || u.password)) add(Buffer.from(`${safeDecode(u.username)}:${safeDecode(u.password)}`).toString('base64'));
    // a webhook's every query value is a secret; another sink's those whose names say so
    for (const [key, value] of u.searchParams) if (isWebhook(spec) || SECRET_PARAM.test(key)) addWithParts(value);
    // a webhook's path is its secret (https://hooks.slack.com/services/T0/B0/XXXX)
    // and each of its segments: a peer may echo only the last (`token SECRETxyz123`)
    if (isWebhook(spec) && u.pathname !== '/') {
      add(u.pathname);
      add(safeDecode(u.pathname));
      for (const segment of u.pathname.split('/')) {
        add(segment);
        add(safeDecode(segment));
      }
    }
  } catch {
    // an unparsable URL never reaches a sink
  }
  // the longest first, so that a secret containing another is hidden whole
  return [...found].filter((s) => s !== '').sort((a, b) => b.length - a.length);
}

/** A function that replaces each of the sink's secrets in a text by `***`, in any letter case (a peer may echo a value lowercased). */
export function scrubberOf(spec: SinkSpec): (text: string) => string {
  const secrets = secretsOf(spec);
  if (secrets.length === 0) return (text) => text;
  const pattern = new RegExp(secrets.map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'giu');
  return (text) => text.replace(pattern, '***');
}

// the parts of a value split at whitespace, `,`, `;` and `=`, each long enough to be a secret,
// without the public name of an authorization scheme (`Bearer`, `Basic`...)
function partsOf(value: string): string[] {
  return value.split(/[\s,;=]+/).filter((p) => p.length >= SHORTEST_SECRET && !AUTH_SCHEMES.has(p.toLowerCase()));
}

// a part that is base64 of printable text (`Basic dXNlcjpwYXNz`): the text and its `user:password` halves
function base64Texts(part: string): string[] {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(part) || part.length % 4 === 1) return [];
  const text = Buffer.from(part, 'base64').toString('utf8');
  if (!/^[\x20-\x7e]+$/.test(text)) return [];
  return [text, ...text.split(':')];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
