import http from 'node:http';
import type net from 'node:net';

// A webhook on a loopback port for the escalation tests: answers each POST as told, keeps every
// attempt, can stop listening for a while (connections refused) and come back on the same port.

/** One POST the webhook received. */
export interface Attempt {
  key: string | undefined;
  status: number;
  /** The body parsed when it is JSON, else its text. */
  body: any;
  /** The body's text. */
  text: string;
  headers: http.IncomingHttpHeaders;
}

/** A webhook on a loopback port that answers the n-th POST with `answer(n, path)` (a status, or a status and a body) and keeps every attempt. */
export async function startWebhook(answer: (n: number, path: string) => number | [number, string]) {
  const attempts: Attempt[] = [];
  const sockets = new Set<net.Socket>();
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = answer(attempts.length + 1, req.url ?? '');
      const [status, reply] = typeof answered === 'number' ? [answered, ''] : answered;
      const key = req.headers['idempotency-key'];
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try { body = JSON.parse(text); } catch { /* a text body (ntfy) */ }
      attempts.push({ key: typeof key === 'string' ? key : undefined, status, body, text, headers: req.headers });
      res.writeHead(status).end(reply);
      for (const w of waiters.splice(0)) w();
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  let port = 0;
  const up = () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => {
    port = (server.address() as net.AddressInfo).port;
    resolve();
  }));
  await up();
  return {
    url: () => `http://127.0.0.1:${port}/hook`,
    attempts,
    /** Resolve once the attempts satisfy `ok`. */
    async until(ok: (a: Attempt[]) => boolean): Promise<void> {
      while (!ok(attempts)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    /** Stop listening for `ms` (connections refused), then listen on the same port again. */
    downFor(ms: number): Promise<void> {
      return new Promise((resolve) => {
        server.close(() => setTimeout(() => void up().then(resolve), ms));
        for (const s of sockets) s.destroy();
      });
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }),
  };
}
