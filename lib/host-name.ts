import net from 'node:net';

// Host names and addresses in one spelling, so that the daemon's guard compares like with
// like: the `Host` header of a request (RFC 9110 7.2: uri-host [":" port]) and the names an
// operator lists. Pure: no DNS, no os calls.

/** RFC 3986 reg-name characters (unreserved and sub-delims; %-escapes are not names of ours). */
const REG_NAME = /^[a-z0-9\-._~!$&'()*+,;=]+$/;

/**
 * A host name or address in canonical form: lower case, one trailing dot dropped
 * (`localhost.`), IPv6 without brackets and compressed (`0:0::1` -> `::1`), an IPv4-mapped
 * IPv6 address as its IPv4 address (`::ffff:127.0.0.1` -> `127.0.0.1`). Undefined when it is
 * not a plain name or address (it holds a user, a port, a path, spaces...).
 */
export function canonicalHost(text: string): string | undefined {
  let name = text.toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (net.isIPv6(name)) return canonicalIPv6(name);
  if (name.endsWith('.') && !name.endsWith('..')) name = name.slice(0, -1);
  if (name === '' || !REG_NAME.test(name)) return undefined;
  return name;
}

/**
 * The host of a `Host` header value, canonical, without its port (`[::1]:6562` -> `::1`).
 * Undefined for a value RFC 9110 does not allow: userinfo (`user@host`), a port that is not
 * digits, an IPv6 address without brackets, an empty host.
 */
export function hostOfHeader(value: string): string | undefined {
  const text = value.trim();
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end === -1 || !validPort(text.slice(end + 1))) return undefined;
    const inner = text.slice(1, end);
    return net.isIPv6(inner) ? canonicalIPv6(inner) : undefined;
  }
  const colon = text.indexOf(':');
  if (colon !== -1 && !validPort(text.slice(colon))) return undefined;
  const name = colon === -1 ? text : text.slice(0, colon);
  return net.isIPv6(name) ? undefined : canonicalHost(name);
}

/** Whether a canonical host is the unspecified address (`0.0.0.0`, `::`): on this machine it reaches this machine. */
export function isUnspecifiedHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

// after the host: nothing, or ":" and digits (RFC 3986 allows an empty port: "host:")
function validPort(rest: string): boolean {
  return rest === '' || /^:\d*$/.test(rest);
}

function canonicalIPv6(address: string): string | undefined {
  // a zone (`fe80::1%eth0`) names a link of one machine, never this daemon's address
  if (address.includes('%')) return undefined;
  // the WHATWG URL parser writes IPv6 in its compressed canonical form
  const compressed = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (!mapped) return compressed;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
