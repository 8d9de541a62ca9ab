import { ConfigError } from '../../lib/errors.js';

// A postgres:// URL's `sslmode` as PostgreSQL's own documentation (libpq) defines it. pg 8 takes
// `prefer`, `require` and `verify-ca` for `verify-full` and prints a multi-line SECURITY WARNING
// on stderr; its libpq-compatible reading (`uselibpqcompat=true`) is the documented one, and it
// warns about nothing. pg cannot fall back from SSL to plain text or back, so `allow` (plain
// first) connects without SSL and `prefer` (SSL first) as `require` (docs/fleet.md, SSL).

/** The sslmodes of libpq, weakest first. */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

// what pg does for each: allow and prefer have no fallback in pg
const AS_PG: Record<string, string> = { allow: 'disable', prefer: 'require' };

/**
 * `url` with its sslmode read the libpq way (unchanged without one, or when it says
 * `uselibpqcompat` itself); throws ConfigError naming `option` for an unknown sslmode and for
 * `verify-ca` without `sslrootcert` (nothing to verify against).
 */
export function libpqUrl(url: string, option: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  const mode = params.get('sslmode');
  if (mode === null || params.has('uselibpqcompat')) return url;
  if (!(SSL_MODES as readonly string[]).includes(mode)) throw new ConfigError(`${option} sslmode`, `one of ${SSL_MODES.join(', ')}`, mode);
  if (mode === 'verify-ca' && !params.has('sslrootcert')) {
    throw new ConfigError(`${option} sslmode=verify-ca`, 'given with sslrootcert=<the CA file to verify the server against>', 'no sslrootcert');
  }
  params.set('sslmode', AS_PG[mode] ?? mode);
  params.set('uselibpqcompat', 'true');
  return `${url.slice(0, q)}?${params.toString()}`;
}
