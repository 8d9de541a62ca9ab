import dgram from 'node:dgram';
import { isIP } from 'node:net';
import type { Logger } from '../../lib/log.js';

// Alpaca discovery (the Alpaca API Reference, section 5): a client broadcasts the 16 bytes
// `alpacadiscovery1` to the discovery port (IPv4 broadcast, or IPv6 multicast to
// ff12::a1:9aca); every device answers the sender, by unicast, `{"AlpacaPort":N}`. The port
// is opened shared (SO_REUSEADDR, and SO_REUSEPORT where Node offers it: section 5.8.2) so
// other Alpaca devices on the machine can listen too. Anything else received is ignored.

const MESSAGE = 'alpacadiscovery1';
const IPV6_GROUP = 'ff12::a1:9aca';
const MAX_MESSAGE_BYTES = 64;

/** A listening discovery responder. */
export interface Discovery {
  /** The UDP port it listens on (the configured one, or the ephemeral one when 0 was asked for). */
  readonly port: number;
  close(): Promise<void>;
}

/** Whether a datagram is a version-1 discovery message (16 bytes, or up to 64 with the reserved bytes). */
export function isDiscoveryMessage(message: Buffer): boolean {
  return message.length >= MESSAGE.length && message.length <= MAX_MESSAGE_BYTES && message.subarray(0, MESSAGE.length).toString('latin1') === MESSAGE;
}

/**
 * Answer discovery on `port` for the Alpaca port `alpacaPort`. `bind` is the Alpaca server's
 * address: a loopback one listens on loopback only; any other listens on every interface of
 * its family (broadcasts and multicasts arrive on the wildcard address), joining the IPv6 group.
 */
export async function startDiscovery(opts: { bind: string; port: number; alpacaPort: number; logger: Logger }): Promise<Discovery> {
  const v6 = isIP(opts.bind) === 6;
  const loopback = opts.bind === '127.0.0.1' || opts.bind === '::1' || opts.bind === 'localhost';
  const address = loopback ? (v6 ? '::1' : '127.0.0.1') : (v6 ? '::' : '0.0.0.0');
  const socket = dgram.createSocket({ type: v6 ? 'udp6' : 'udp4', reuseAddr: true, ...reusePort() });
  const reply = Buffer.from(JSON.stringify({ AlpacaPort: opts.alpacaPort }));
  socket.on('message', (message, from) => {
    const sender = `${from.address}:${from.port}`;
    if (!isDiscoveryMessage(message)) return opts.logger.debug(`alpaca discovery: ignored ${message.length} bytes from ${sender} (not alpacadiscovery1)`);
    opts.logger.debug(`alpaca discovery: answering ${sender}`);
    socket.send(reply, from.port, from.address, (error) => {
      if (error) opts.logger.warn(`alpaca discovery: cannot answer ${sender}: ${error.message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(opts.port, address, () => { socket.off('error', reject); resolve(); });
  });
  socket.on('error', (error) => opts.logger.warn(`alpaca discovery: ${error.message}`));
  if (v6 && !loopback) {
    try {
      socket.addMembership(IPV6_GROUP);
    } catch (error) {
      opts.logger.warn(`alpaca discovery: cannot join ${IPV6_GROUP} (${(error as Error).message}); IPv6 clients must be given the address`);
    }
  }
  return {
    port: socket.address().port,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** SO_REUSEPORT where this Node offers it (22.12 and 23.1 on; older ones share by SO_REUSEADDR alone). */
function reusePort(): { reusePort?: boolean } {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12) ? { reusePort: true } : {};
}
