import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../../lib/config.js';
import { MeridianError } from '../../lib/errors.js';
import { canonicalHost, hostOfHeader, isUnspecifiedHost } from '../../lib/host-name.js';

// Who may talk to the daemon: no browsers (an Origin header, or a Host that is not one of
// this machine's names: DNS rebinding), the token when one is set, /shutdown from loopback.
// Headers are read as the RFCs say (docs/operations.md "Security").

const OPEN_PATHS = new Set(['/health', '/ready']);

/** The rules of docs/operations.md "Security", bound to the daemon's address, names and token. */
export interface Guard {
  /** Throws INVALID_HOST / FORBIDDEN / UNAUTHORIZED when the request may not go on. */
  check(req: IncomingMessage, path: string): void;
  /** Whether the request carries the configured token (false when none is configured). */
  hasToken(req: IncomingMessage): boolean;
}

/** What the guard is built from: the bind host, the token, and the other names of this machine (canonical, see lib/host-name.ts). */
export interface GuardSettings {
  readonly host: string;
  readonly token: string | undefined;
  readonly allowedHosts: readonly string[];
}

/** Build the guard of a daemon. */
export function createGuard({ host, token, allowedHosts }: GuardSettings): Guard {
  const expected = token === undefined ? undefined : Buffer.from(token);
  const own = new Set([...allowedHosts, canonicalHost(host) ?? host.toLowerCase()]);
  const hasToken = (req: IncomingMessage) => {
    const given = expected === undefined ? undefined : bearerToken(req.headers.authorization);
    if (expected === undefined || given === undefined) return false;
    const buf = Buffer.from(given);
    return buf.length === expected.length && timingSafeEqual(buf, expected);
  };
  // the Host header is the same on nearly every request: judge each value once
  let lastHost: string | undefined;
  let lastName: string | undefined;
  let lastHostOk = false;
  return {
    hasToken,
    check(req, path) {
      if (req.headers.origin !== undefined) {
        throw new MeridianError('FORBIDDEN', 'Requests from web pages (with an Origin header) are refused.');
      }
      const hostHeader = req.headers.host;
      checkHostCount(req);
      if (hostHeader !== undefined) {
        if (hostHeader !== lastHost) {
          lastHost = hostHeader;
          lastName = hostOfHeader(hostHeader);
          lastHostOk = lastName !== undefined && (own.has(lastName) || isLoopbackHost(lastName) || isUnspecifiedHost(lastName));
        }
        if (lastName === undefined) {
          throw new MeridianError('INVALID_HOST', `Host ${JSON.stringify(hostHeader)} is not a host name or address with an optional port.`);
        }
        // the address the client connected to is also ours (a wildcard bind such as 0.0.0.0)
        if (!lastHostOk && lastName !== localAddress(req)) {
          throw new MeridianError('FORBIDDEN', `Host ${JSON.stringify(hostHeader)} is not one of this daemon's names (--allowed-hosts adds names).`);
        }
      }
      if (expected && !OPEN_PATHS.has(path)) {
        if (bearerToken(req.headers.authorization) === undefined) {
          throw new MeridianError('UNAUTHORIZED', 'This daemon needs a token: send Authorization: Bearer <token>.');
        }
        if (!hasToken(req)) throw new MeridianError('FORBIDDEN', 'The token is wrong.');
      }
    },
  };
}

/**
 * RFC 9112 3.2: exactly one Host header (Node keeps the first of several, so they are counted
 * in the raw headers), and one in every HTTP/1.1 request (the server is told not to answer
 * that itself, so the answer is JSON like every other).
 */
function checkHostCount(req: IncomingMessage): void {
  const raw = req.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  if (count > 1) throw new MeridianError('INVALID_HOST', `A request carries one Host header; this one has ${count}.`);
  if (count === 0 && req.httpVersion !== '1.0') throw new MeridianError('INVALID_HOST', `An HTTP/${req.httpVersion} request must carry a Host header.`);
}

/**
 * A request target in absolute form (`http://host:port/path?query`, RFC 9112 3.2.2) as its
 * authority and its origin form (`/path?query`); undefined for a target in origin form or of
 * another scheme. Its authority takes the place of the Host header (checked by the same rules).
 */
export function absoluteTarget(url: string): { authority: string; target: string } | undefined {
  if (url.charCodeAt(0) === 47 || !/^http:\/\//i.test(url)) return undefined;
  const rest = url.slice(7);
  const end = rest.search(/[/?#]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  const target = end === -1 ? '/' : rest[end] === '/' ? rest.slice(end) : `/${rest.slice(end)}`;
  return { authority, target };
}

/**
 * Whether the peer of a request is this machine: a loopback address, or the very address it
 * connected to (a client on the unit naming it by its network address or a name that resolves
 * to one: the kernel routes that connection locally, and a remote peer cannot complete TCP
 * from this machine's address).
 */
export function fromLoopback(req: IncomingMessage): boolean {
  const addr = req.socket.remoteAddress ?? '';
  return addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.') || (addr !== '' && addr === req.socket.localAddress);
}

/**
 * The credentials of `Authorization: Bearer <token>` (RFC 7235: the scheme in any case,
 * one or more spaces before the token); undefined without the header, with another scheme or without credentials.
 */
function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:[ \t]+(.*?))?[ \t]*$/.exec(header);
  if (!match || match[1]!.toLowerCase() !== 'bearer' || !match[2]) return undefined;
  return match[2];
}

/** The address of this end of the connection, canonical (an IPv4-mapped address as IPv4). */
function localAddress(req: IncomingMessage): string | undefined {
  const addr = req.socket.localAddress;
  return addr === undefined ? undefined : canonicalHost(addr);
}
