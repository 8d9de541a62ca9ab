import type { SinkSpec } from './sink.js';

// Keeping a sink's secrets (its password, header values, URL userinfo, a password in the URL's
// query) out of everything the daemon shows: /status, /metrics, logs, dead letters and start
// errors. The client libraries (pg, mqtt.js, got) may quote the URL or echo a header in their
// errors: every error leaving a sink passes through its scrubber (lazy-sink.ts).

// query parameters that carry a secret (pg reads `password` and `sslpassword` from the URL)
const SECRET_PARAM = /pass|secret|token|key|auth|sig/i;
// a header value shorter than this is no secret, and scrubbing it would garble messages
const SHORTEST_SECRET = 4;

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

/** Text that may be a URL the parser refused: any `//userinfo@` cut out, whatever follows a secret query key hidden. */
export function redactUrlText(text: string): string {
  return text.replace(/\/\/[^/?#]*@/, '//***@').replace(/([?&][^=&#]*(?:pass|secret|token|key|auth|sig)[^=&#]*=)[^&#]*/gi, '$1***');
}

/** Every secret text of a sink, as configured and as a URL carries it (percent-encoded). */
export function secretsOf(spec: SinkSpec): string[] {
  const found = new Set<string>();
  const add = (s: string | undefined) => {
    if (s === undefined || s.length < SHORTEST_SECRET) return;
    found.add(s);
    found.add(encodeURIComponent(s));
  };
  if (spec.kind !== 'http') add(spec.password);
  if (spec.kind === 'http') for (const value of Object.values(spec.headers)) add(value);
  try {
    const u = new URL(spec.url);
    for (const raw of [u.password, spec.kind === 'http' ? u.username : '']) {
      if (raw === '') continue;
      found.add(raw);
      add(safeDecode(raw));
    }
    // got sends an http(s) URL's userinfo as Basic authorization, which a peer may echo
    if (spec.kind === 'http' && (u.username || u.password)) add(Buffer.from(`${safeDecode(u.username)}:${safeDecode(u.password)}`).toString('base64'));
    for (const [key, value] of u.searchParams) if (SECRET_PARAM.test(key)) add(value);
  } catch {
    // an unparsable URL never reaches a sink
  }
  // the longest first, so that a secret containing another is hidden whole
  return [...found].filter((s) => s !== '').sort((a, b) => b.length - a.length);
}

/** A function that replaces each of the sink's secrets in a text by `***`. */
export function scrubberOf(spec: SinkSpec): (text: string) => string {
  const secrets = secretsOf(spec);
  return (text) => {
    let out = text;
    for (const s of secrets) out = out.split(s).join('***');
    return out;
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
