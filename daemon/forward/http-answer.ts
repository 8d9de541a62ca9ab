import http from 'node:http';
import https from 'node:https';
import got, { type Got } from 'got';
import { redactUrlText } from './secrets.js';
import { SinkRejection, type HttpSinkSpec } from './sink.js';

// What an HTTP peer's answer means for a sink (the HTTP sink and the [[notify]] webhooks alike):
// 2xx delivered; a redirect is never followed (a failure, retried, naming where it pointed);
// 408, 429 and 5xx are failures to retry; any other 4xx refuses the records (dead letters).

/** The parts of an answer the judgement reads. */
export interface PeerAnswer {
  statusCode: number;
  headers: { location?: string };
  body: unknown;
}

/** Returns when the answer delivered the records; throws a retryable Error or a SinkRejection otherwise. `peer` names it in a redirect's message. */
export function judgeAnswer(res: PeerAnswer, peer: 'peer' | 'webhook', urlSetting: string): void {
  const status = res.statusCode;
  if (status >= 200 && status < 300) return;
  if (status >= 300 && status < 400) {
    const where = res.headers.location === undefined ? 'without a Location' : `to ${redactUrlText(res.headers.location)}`;
    throw new Error(`HTTP ${status}: the ${peer} redirected ${where}; redirects are not followed (set ${urlSetting} to the final address)`);
  }
  const detail = `HTTP ${status}${res.body ? `: ${String(res.body).slice(0, 200)}` : ''}`;
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw new SinkRejection(detail);
  throw new Error(detail);
}

/** The most of an answer's body read (for an error's message): the rest is never buffered. */
export const ANSWER_PREFIX_BYTES = 4096;

/** What a POST to a peer takes. */
export interface PeerPost {
  body: string | Buffer;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** One HTTP peer (the HTTP sink or a webhook): `post` answers its status, Location and at most ANSWER_PREFIX_BYTES of its body; `close` ends its sockets. */
export interface Peer {
  post(url: string, options: PeerPost): Promise<PeerAnswer>;
  close(): void;
}

/** A got client for one HTTP peer (the HTTP sink or a webhook): one kept-alive socket, no retry, no redirect, answers judged by judgeAnswer. */
export function peerClient(spec: HttpSinkSpec, headers: Readonly<Record<string, string>> = {}): Peer {
  const agent = { http: new http.Agent({ keepAlive: true, maxSockets: 1 }), https: new https.Agent({ keepAlive: true, maxSockets: 1 }) };
  const client = got.extend({
    agent, retry: { limit: 0 }, throwHttpErrors: false, followRedirect: false, timeout: { request: spec.timeoutMs },
    headers: { ...headers, ...spec.headers },
  });
  return {
    post: (url, options) => boundedPost(client, url, options),
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}

// The POST as a stream: the status and headers (a 2xx is delivered then, whatever its body),
// then for any other answer the body's first ANSWER_PREFIX_BYTES for its message; a longer body
// is not read further (the request is destroyed, its socket with it), so a peer answering 200
// with 600 MB costs 4 KB.
function boundedPost(client: Got, url: string, options: PeerPost): Promise<PeerAnswer> {
  const stream = client.stream.post(url, { body: options.body, headers: options.headers, signal: options.signal });
  return new Promise((resolve, reject) => {
    let head: Omit<PeerAnswer, 'body'> | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = () => {
      if (settled || head === undefined) return;
      settled = true;
      resolve({ ...head, body: Buffer.concat(chunks).subarray(0, ANSWER_PREFIX_BYTES).toString('utf8') });
    };
    stream.on('response', (res: http.IncomingMessage) => {
      head = { statusCode: res.statusCode ?? 0, headers: { location: res.headers.location } };
      // a 2xx delivered the records as soon as it is said, whatever its body and however slowly that comes (hostile
      // tester O: a body dripping past the timeout made a delivered escalation a failure, sent again every timeout);
      // the body is read on in the background (the socket kept for the next POST) and dropped past the prefix
      if (head.statusCode >= 200 && head.statusCode < 300) {
        settled = true;
        resolve({ ...head, body: '' });
      }
    });
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (!settled) chunks.push(chunk);
      if (size < ANSWER_PREFIX_BYTES) return;
      finish();
      stream.destroy();
    });
    stream.on('end', finish);
    stream.on('error', (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
  });
}
