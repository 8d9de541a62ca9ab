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

/** A got client for one HTTP peer (the HTTP sink or a webhook): one kept-alive socket, no retry, no redirect, answers judged by judgeAnswer; `close` ends its sockets. */
export function peerClient(spec: HttpSinkSpec, headers: Readonly<Record<string, string>> = {}): { client: Got; close(): void } {
  const agent = { http: new http.Agent({ keepAlive: true, maxSockets: 1 }), https: new https.Agent({ keepAlive: true, maxSockets: 1 }) };
  const client = got.extend({
    agent, retry: { limit: 0 }, throwHttpErrors: false, followRedirect: false, timeout: { request: spec.timeoutMs },
    headers: { ...headers, ...spec.headers },
  });
  return {
    client,
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}
