import net from 'node:net';

/**
 * Run `fn` against a loopback TCP listener that accepts connections and never answers (a hung
 * daemon), or answers what `onSocket` writes; `connections()` counts the connections so far.
 * The sockets and the listener are closed afterwards.
 */
export async function withSilentListener(fn: (port: number, connections: () => number) => Promise<void>,
  onSocket: (socket: net.Socket) => void = () => {}): Promise<void> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    onSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  try {
    await fn((server.address() as net.AddressInfo).port, () => sockets.size);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}
