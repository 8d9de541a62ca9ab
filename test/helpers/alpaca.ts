import dgram from 'node:dgram';
import { request, type RawAnswer } from './http.js';
import type { TestDaemon } from './daemon.js';

// Requests to a test daemon's ASCOM Alpaca server, sent with node:http as any Alpaca client
// would: GET with a query string, PUT with an application/x-www-form-urlencoded body.

/** The base URL of the daemon's Alpaca server. */
export function alpacaUrl(d: TestDaemon): string {
  const alpaca = d.daemon.alpaca;
  if (!alpaca) throw new Error('the test daemon has no [alpaca] server');
  return `http://127.0.0.1:${alpaca.port}`;
}

/** GET `path` (query string included as given). */
export function alpacaGet(d: TestDaemon, path: string): Promise<RawAnswer> {
  return request(alpacaUrl(d), path);
}

/** PUT `path` with `form` as the form body (already encoded). */
export function alpacaPut(d: TestDaemon, path: string, form: string, contentType = 'application/x-www-form-urlencoded'): Promise<RawAnswer> {
  return request(alpacaUrl(d), path, { method: 'PUT', body: form, headers: { 'content-type': contentType } });
}

/** Send each datagram to 127.0.0.1:`port` from one socket; resolve with the first `count` answers' text. */
export function udpProbe(port: number, messages: readonly string[], count: number, timeoutMs = 5000): Promise<string[]> {
  const socket = dgram.createSocket('udp4');
  const answers: string[] = [];
  return new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => { socket.close(); reject(new Error(`only ${answers.length} of ${count} discovery answers within ${timeoutMs} ms`)); }, timeoutMs);
    socket.on('message', (message) => {
      answers.push(message.toString('utf8'));
      if (answers.length === count) {
        clearTimeout(timer);
        socket.close();
        resolve(answers);
      }
    });
    socket.on('error', (error) => { clearTimeout(timer); socket.close(); reject(error); });
    socket.bind(0, '127.0.0.1', () => {
      for (const m of messages) socket.send(Buffer.from(m, 'latin1'), port, '127.0.0.1');
    });
  });
}
