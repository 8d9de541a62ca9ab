import net from 'node:net';

/** What a test sees of a silent listener. */
export interface SilentListener {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  /** Resolves once a connection was accepted; rejects after `deadlineMs`. */
  connected(deadlineMs?: number): Promise<void>;
}

/**
 * Run `fn` against a loopback TCP listener that accepts connections and never answers (a hung
 * daemon), or answers what `onSocket` writes. The sockets and the listener are closed afterwards.
 */
export async function withSilentListener(fn: (listener: SilentListener) => Promise<void>,
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
  const connected = (deadlineMs = 15_000) => new Promise<void>((resolve, reject) => {
    if (sockets.size > 0) return resolve();
    const timer = setTimeout(() => reject(new Error(`no connection within ${deadlineMs} ms`)), deadlineMs);
    server.once('connection', () => { clearTimeout(timer); resolve(); });
  });
  try {
    await fn({ port: (server.address() as net.AddressInfo).port, connections: () => sockets.size, connected });
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}
