import http from 'node:http';

/** A raw answer: status, headers, body text and the body parsed when it is JSON. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** Options of a raw request; `body` objects are sent as JSON with a JSON content type. */
export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | object;
}

/**
 * Send one request with node:http (no client library in between), so tests control every
 * header and byte. `url` is the daemon base URL, `path` may hold any raw bytes.
 */
export function request(url: string, path: string, opts: RawRequest = {}): Promise<RawAnswer> {
  const base = new URL(url);
  const headers: Record<string, string> = { ...opts.headers };
  let payload: Buffer | undefined;
  if (opts.body !== undefined) {
    if (typeof opts.body === 'string' || Buffer.isBuffer(opts.body)) {
      payload = Buffer.from(opts.body);
    } else {
      payload = Buffer.from(JSON.stringify(opts.body));
      headers['content-type'] ??= 'application/json';
    }
    headers['content-length'] ??= String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: base.hostname, port: base.port, path, method: opts.method ?? (payload ? 'POST' : 'GET'), headers, agent: false,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** POST an event body and return the answer. */
export function postEvent(url: string, body: object, headers?: Record<string, string>): Promise<RawAnswer> {
  return request(url, '/event', { method: 'POST', body, headers });
}
