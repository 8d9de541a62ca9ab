import { setTimeout as delay } from 'node:timers/promises';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Got } from 'got';
import type { AlarmAnswer, Envelope } from '../lib/wire.js';
import { TelemetryClientError, TelemetryConnectionError } from './errors.js';
import { toClientError } from './failure.js';
import { typeParam } from './type-query.js';

// client.stream(): GET /stream as an async iterator (got.stream + eventsource-parser). When the
// connection is lost it says so and reconnects, resuming after the last cursor it saw, so the
// events come with no gap and no duplicate (see docs/client.md).

/** What `stream()` takes; every field optional. */
export interface StreamOptions {
  /** Only these event types (default every type). */
  types?: readonly string[];
  /** Resume after this cursor (replayed from the files) instead of starting with the current view. */
  since?: string;
  /** After a lost connection: resume after the last cursor (default true), or start again with the current view (false). */
  resume?: boolean;
  /** Ends the iteration (as does `break` in `for await`). */
  signal?: AbortSignal;
  /** First wait before reconnecting, ms (default 250; doubled per failure up to 5 s). */
  retryMs?: number;
  /** Also `alarm` messages: every alarm before `live`, then each change (`?alarms=true`; default false). */
  alarms?: boolean;
}

/** One thing the stream said. */
export type StreamMessage =
  /** The current reading of a type (a fresh connection starts with one per type); `text` is the envelope as the daemon sent it. */
  | { kind: 'snapshot'; envelope: Envelope; text: string }
  /** Snapshot or replay done: what follows is live. `cursor` is where the daemon stood. */
  | { kind: 'live'; cursor: string }
  /** A recorded event: `current` true when it became the current reading, false when posted with
   * make_current false, undefined when replayed from the files (which do not record it). `text`: the envelope as sent. */
  | { kind: 'event'; envelope: Envelope; text: string; cursor: string; current: boolean | undefined }
  /** An alarm as GET /alarms shows it (only with `alarms: true`): each one before `live`, then each change. */
  | { kind: 'alarm'; alarm: AlarmAnswer }
  /** The connection was lost (or the daemon dropped this client as too slow); reconnecting. */
  | { kind: 'disconnected'; error: TelemetryClientError };

/** How the stream reaches the daemon. */
export interface StreamTransport {
  http: Got;
  baseUrl: string;
  timeoutSeconds: number;
}

const MAX_RETRY_MS = 5000;

/** Stream messages until aborted; an error answer other than 503 rejects (a 404: no /stream on that daemon). */
export async function* streamMessages(transport: StreamTransport, options: StreamOptions): AsyncGenerator<StreamMessage, void, undefined> {
  const { signal } = options;
  let since = options.since;
  let wait = options.retryMs ?? 250;
  while (!signal?.aborted) {
    const messages: StreamMessage[] = [];
    let failure: TelemetryClientError | undefined;
    const query = [typeParam(options.types), options.alarms ? 'alarms=true' : undefined].filter((q) => q !== undefined);
    const request = transport.http.stream(query.length === 0 ? 'stream' : `stream?${query.join('&')}`, {
      headers: { accept: 'text/event-stream', ...(since !== undefined ? { 'last-event-id': since } : {}) },
      throwHttpErrors: false, signal,
    });
    try {
      const parser = createParser({ onEvent: (e) => {
        const message = toMessage(e);
        if (message) messages.push(message);
        else if (e.event === 'dropped') failure = droppedError(e.data, transport.baseUrl);
      } });
      const decoder = new TextDecoder();
      let status: number | undefined;
      request.once('response', (response: { statusCode: number }) => { status = response.statusCode; });
      let body = '';
      for await (const chunk of request as AsyncIterable<Buffer>) {
        if (status !== 200) {
          body += decoder.decode(chunk, { stream: true });
          continue;
        }
        parser.feed(decoder.decode(chunk, { stream: true }));
        for (const message of messages.splice(0)) {
          if ((message.kind === 'live' || message.kind === 'event') && options.resume !== false) since = message.cursor;
          if (message.kind === 'live') wait = options.retryMs ?? 250;
          yield message;
        }
      }
      if (status !== 200) throw answerError(status ?? 0, body, transport.baseUrl);
      failure ??= new TelemetryConnectionError(`the telemetry daemon at ${transport.baseUrl} ended the stream`,
        { reason: 'ECONNRESET', timedOut: false, method: 'GET', url: `${transport.baseUrl}/stream` });
    } catch (error) {
      if (signal?.aborted) return;
      const mapped = error instanceof TelemetryClientError ? error
        : toClientError(error, { method: 'GET', baseUrl: transport.baseUrl, path: 'stream', timeoutSeconds: transport.timeoutSeconds });
      if (!(mapped instanceof TelemetryConnectionError) && !(mapped instanceof TelemetryClientError && mapped.statusCode === 503)) throw mapped;
      failure = mapped as TelemetryClientError;
    } finally {
      request.destroy();
    }
    if (options.resume === false) since = undefined;
    yield { kind: 'disconnected', error: failure! };
    await delay(wait, undefined, { signal }).catch(() => undefined);
    wait = Math.min(wait * 2, MAX_RETRY_MS);
  }
}

function toMessage(e: EventSourceMessage): StreamMessage | undefined {
  switch (e.event) {
    case 'snapshot': return { kind: 'snapshot', envelope: JSON.parse(e.data) as Envelope, text: e.data };
    case 'live': return { kind: 'live', cursor: e.id ?? (JSON.parse(e.data) as { cursor: string }).cursor };
    case 'event': case 'held': case 'replay':
      return { kind: 'event', envelope: JSON.parse(e.data) as Envelope, text: e.data, cursor: e.id ?? '',
        current: e.event === 'replay' ? undefined : e.event === 'event' };
    case 'alarm': return { kind: 'alarm', alarm: JSON.parse(e.data) as AlarmAnswer };
    default: return undefined;
  }
}

function droppedError(data: string, baseUrl: string): TelemetryClientError {
  const { detail, code } = JSON.parse(data) as { detail: string; code: string };
  return new TelemetryClientError(`GET ${baseUrl}/stream: ${detail}`, { statusCode: 503, detail, code, method: 'GET', url: `${baseUrl}/stream` });
}

function answerError(status: number, body: string, baseUrl: string): TelemetryClientError {
  let answer: { detail?: unknown; code?: unknown } = {};
  try { answer = JSON.parse(body) as typeof answer; } catch { /* not JSON */ }
  const detail = typeof answer.detail === 'string' ? answer.detail : `status ${status}`;
  const code = typeof answer.code === 'string' ? answer.code : undefined;
  const url = `${baseUrl}/stream`;
  return new TelemetryClientError(`GET ${url} answered ${status}${code ? ` ${code}` : ''}: ${detail}`, { statusCode: status, detail, code, method: 'GET', url });
}
