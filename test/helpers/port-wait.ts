import net from 'node:net';

/** Resolve once something accepts TCP connections on 127.0.0.1:`port`; reject after `deadlineMs`. */
export async function waitForPort(port: number, deadlineMs: number, what: string): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => { socket.destroy(); resolve(false); });
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`${what} did not accept connections on port ${port} within ${deadlineMs} ms`);
    // a refused connection answers at once on loopback: pace the next try on the event loop
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
