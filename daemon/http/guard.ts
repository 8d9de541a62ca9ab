import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from '../../lib/config.js';
import { MeridianError } from '../../lib/errors.js';

// Who may talk to the daemon: no browsers, the token when one is set, /shutdown from loopback.

const OPEN_PATHS = new Set(['/health', '/ready']);

/** The rules of docs/operations.md "Security", bound to the daemon's address and token. */
export interface Guard {
  /** Throws FORBIDDEN / UNAUTHORIZED when the request may not go on. */
  check(req: IncomingMessage, path: string): void;
  /** Whether the request carries the configured token (false when none is configured). */
  hasToken(req: IncomingMessage): boolean;
}

/** Build the guard for a daemon bound to `host` with an optional `token`. */
export function createGuard(host: string, token: string | undefined): Guard {
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  const ownHost = stripPort(host.toLowerCase());
  const hasToken = (req: IncomingMessage) => {
    const given = req.headers.authorization;
    if (!expected || given === undefined) return false;
    const buf = Buffer.from(given);
    return buf.length === expected.length && timingSafeEqual(buf, expected);
  };
  // the Host header is the same on nearly every request: judge each value once
  let lastHost: string | undefined;
  let lastName = '';
  let lastHostOk = false;
  return {
    hasToken,
    check(req, path) {
      if (req.headers.origin !== undefined) {
        throw new MeridianError('FORBIDDEN', 'Requests from web pages (with an Origin header) are refused.');
      }
      const hostHeader = req.headers.host;
      if (hostHeader !== undefined) {
        if (hostHeader !== lastHost) {
          lastHost = hostHeader;
          lastName = stripPort(hostHeader.toLowerCase());
          lastHostOk = lastName === ownHost || isLoopbackHost(lastName);
        }
        // the address the client connected to is also ours (a wildcard bind such as 0.0.0.0)
        if (!lastHostOk && lastName !== localAddress(req)) {
          throw new MeridianError('FORBIDDEN', `Host ${JSON.stringify(hostHeader)} is not this daemon's address.`);
        }
      }
      if (expected && !OPEN_PATHS.has(path)) {
        if (req.headers.authorization === undefined) {
          throw new MeridianError('UNAUTHORIZED', 'This daemon needs a token: send Authorization: Bearer <token>.');
        }
        if (!hasToken(req)) throw new MeridianError('FORBIDDEN', 'The token is wrong.');
      }
    },
  };
}

/** Whether the peer of a request is on a loopback address. */
export function fromLoopback(req: IncomingMessage): boolean {
  const addr = req.socket.remoteAddress ?? '';
  return addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.');
}

/** The address of this end of the connection, without an IPv4-mapped prefix. */
function localAddress(req: IncomingMessage): string | undefined {
  const addr = req.socket.localAddress;
  return addr?.startsWith('::ffff:') ? addr.slice(7) : addr;
}

function stripPort(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') === -1 ? undefined : host.indexOf(']'));
  const colons = host.split(':').length - 1;
  return colons === 1 ? host.slice(0, host.indexOf(':')) : host;
}
