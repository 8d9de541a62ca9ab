import http from 'node:http';
import got, { type Got, type OptionsInit } from 'got';
import type {
  BatchAnswer, CurrentAnswer, DamagedFile, Envelope, EventRequest, HealthAnswer, JsonValue, ReadyAnswer, RunRecord, RunStartRequest,
  RebuildAnswer, RollupAnswer, ShutdownAnswer, StatusAnswer, StoppedRunRecord,
} from '../lib/wire.js';
import type { AlarmMethod } from './alarms.js';
import { SafetyMethods } from './safety.js';
import { TelemetryClientError } from './errors.js';
import { toClientError } from './failure.js';
import { currentEnvelopeTexts, historyEnvelopeTexts } from './answer-text.js';
import { historyPages, type HistoryOptions, type HistoryPage, type HistoryTextPage } from './history.js';
import { rollupPath, type RollupOptions } from './rollup.js';
import { resolveClientSettings, type TelemetryClientOptions } from './options.js';
import { streamMessages, type StreamMessage, type StreamOptions } from './stream.js';
import type { StartRunOptions, PostEventTextOptions, PostEventOptions, BatchEvent, PostEventsOptions, CurrentFilter, CurrentPoll } from './request-options.js';
import { batchPath, currentPath, nightReportPath, type ReportChoice } from './paths.js';

// TelemetryClient: the whole HTTP API as typed methods (camelCase outside, snake_case on the wire).

export type { TelemetryClientOptions } from './options.js';
export type { HistoryOptions, HistoryPage, HistoryTextPage } from './history.js';
export type { StreamMessage, StreamOptions } from './stream.js';
export type { StartRunOptions, PostEventTextOptions, PostEventOptions, BatchEvent, PostEventsOptions, CurrentFilter, CurrentPoll } from './request-options.js';
export type { RollupOptions } from './rollup.js';

/** What the client sends as a request body: the wire types of lib/wire.ts, snake_case. */
type RequestBody = EventRequest | RunStartRequest | EventRequest[] | Record<string, unknown>;

// Types that cannot travel as a path segment: URLs drop `.` and `..` segments (also as %2e), and `` is no segment.
const UNADDRESSABLE_TYPES = new Set(['', '.', '..']);

/** A client for the Meridian telemetry daemon: one instance per daemon, reused for every call. */
export class TelemetryClient extends SafetyMethods {
  /** The base URL requests go to, e.g. `http://localhost:6562`. */
  readonly baseUrl: string;
  private readonly timeoutSeconds: number;
  private readonly http: Got;
  /** The same without a request deadline (a stream stays open) and without JSON decoding. */
  private readonly streamHttp: Got;
  /** The keep-alive agent this client made (none when a session brought its own). */
  private readonly agent: http.Agent | undefined;

  constructor(options: TelemetryClientOptions = {}) {
    super();
    const settings = resolveClientSettings(options, options.env ?? process.env);
    this.baseUrl = settings.baseUrl;
    this.timeoutSeconds = settings.timeoutSeconds;
    const session = options.session ?? got;
    // The client's own rules win over the session's: one attempt, a deadline, JSON, errors thrown.
    const init: OptionsInit = {
      prefixUrl: this.baseUrl,
      timeout: { request: Math.round(settings.timeoutSeconds * 1000) },
      retry: { limit: 0 },
      responseType: 'json',
      resolveBodyOnly: false,
      throwHttpErrors: true,
      headers: settings.token ? { authorization: `Bearer ${settings.token}` } : {},
    };
    // keep-alive by default; a session's own agent is kept as it is
    if (!session.defaults.options.agent.http) {
      this.agent = new http.Agent({ keepAlive: true });
      init.agent = { http: this.agent };
    }
    this.http = session.extend(init);
    const ms = Math.round(settings.timeoutSeconds * 1000);
    this.streamHttp = session.extend({ ...init, responseType: 'text', timeout: { connect: ms, response: ms } });
  }

  /** GET /health: `{ok: true}` when the daemon is up. */
  health(): Promise<HealthAnswer> {
    return this.call('GET', 'health');
  }

  /** GET /ready: readiness, whether a run is active, and the daemon's version. */
  ready(): Promise<ReadyAnswer> {
    return this.call('GET', 'ready');
  }

  /** GET /status: the daemon's pid, start time, address, active run id and number of current types. */
  status(): Promise<StatusAnswer> {
    return this.call('GET', 'status');
  }

  /** GET /run: the active run's record (404 NO_ACTIVE_RUN when none). */
  getRun(): Promise<RunRecord> {
    return this.call('GET', 'run');
  }

  /** POST /run/start: start a run (409 RUN_ACTIVE when one is active). */
  startRun(options: StartRunOptions = {}): Promise<RunRecord> {
    const body: RunStartRequest = {};
    if (options.runDir !== undefined) body.run_dir = options.runDir;
    if (options.runId !== undefined) body.run_id = options.runId;
    if (options.meta !== undefined) body.meta = options.meta;
    return this.call('POST', 'run/start', body);
  }

  /** POST /run/stop: stop the active run and get its record with `stopped_at`. */
  stopRun(): Promise<StoppedRunRecord> {
    return this.call('POST', 'run/stop');
  }

  /** POST /event: record one event; resolves to its envelope (seq, ts, ...). */
  postEvent(type: string, data: JsonValue, options: PostEventOptions = {}): Promise<Envelope> {
    const body: EventRequest = { type, data, make_current: options.makeCurrent ?? true };
    if (options.maxAgeS !== undefined) body.max_age_s = options.maxAgeS;
    if (options.meta !== undefined) body.meta = options.meta;
    return this.call('POST', 'event', body);
  }

  /**
   * POST /event with `data` (and `meta`) given as JSON text, sent as spelled (a number such as
   * `1.0` or `12345678901234567890` reaches the daemon as written); resolves to the envelope
   * as the daemon's text. The texts must be JSON (the daemon answers 400 or 422 otherwise).
   */
  async postEventText(type: string, dataText: string, options: PostEventTextOptions = {}): Promise<string> {
    const fields = [`"type":${JSON.stringify(type)}`, `"data":${dataText}`, `"make_current":${options.makeCurrent ?? true}`];
    if (options.maxAgeS !== undefined) fields.push(`"max_age_s":${JSON.stringify(options.maxAgeS)}`);
    if (options.metaText !== undefined) fields.push(`"meta":${options.metaText}`);
    return (await this.send('POST', 'event', `{${fields.join(',')}}`)).rawBody.toString('utf8');
  }

  /**
   * POST /events: record a batch in one request (seqs in batch order, one write). Atomic
   * unless `partial`: any invalid event rejects with 422 INVALID_BATCH and nothing is
   * recorded; `error.answer.failures` lists each by index.
   */
  postEvents(events: readonly BatchEvent[], options: PostEventsOptions = {}): Promise<BatchAnswer> {
    const body = events.map((e) => {
      const wire: EventRequest = { type: e.type, data: e.data };
      if (e.makeCurrent !== undefined) wire.make_current = e.makeCurrent;
      if (e.maxAgeS !== undefined) wire.max_age_s = e.maxAgeS;
      if (e.meta !== undefined) wire.meta = e.meta;
      return wire;
    });
    return this.call('POST', batchPath(options), body);
  }

  /**
   * POST /events with events already in wire form, one JSON text each (the lines of an
   * NDJSON file), sent as they are: the daemon validates exactly what the file holds.
   */
  async postEventLines(lines: readonly string[], options: PostEventsOptions = {}): Promise<BatchAnswer> {
    const payload = lines.map((line) => `${line}\n`).join('');
    const path = batchPath(options);
    try {
      return (await this.http(path, { method: 'POST', body: payload, headers: { 'content-type': 'application/x-ndjson' } })).body as unknown as BatchAnswer;
    } catch (error) {
      throw toClientError(error, { method: 'POST', baseUrl: this.baseUrl, path, timeoutSeconds: this.timeoutSeconds });
    }
  }

  /** GET /current?freshness=true: the latest envelope of every type and how fresh each is (optionally only some types, or only stale ones). */
  current(filter: CurrentFilter = {}): Promise<CurrentAnswer> {
    return this.call('GET', currentPath(filter));
  }

  /**
   * GET /current, decoded and as the daemon's text: `texts` holds each envelope as sent, by
   * type (for a program that passes the readings on byte for byte; decoding respells numbers).
   */
  async currentWithText(filter: CurrentFilter = {}): Promise<{ answer: CurrentAnswer; text: string; texts: Map<string, string> }> {
    const response = await this.send('GET', currentPath(filter));
    const text = response.rawBody.toString('utf8');
    return { answer: response.body as unknown as CurrentAnswer, text, texts: currentEnvelopeTexts(text) };
  }

  /** GET /current/{type} as the daemon's text: the envelope as sent (404 NO_READING when none). */
  async currentEventText(type: string): Promise<string> {
    if (UNADDRESSABLE_TYPES.has(type)) {
      const { texts } = await this.currentWithText();
      return texts.get(type) ?? JSON.stringify(await this.currentEvent(type));
    }
    return this.text(`current/${encodeURIComponent(type)}`);
  }

  /** GET /current/{type}: the latest envelope of one type (404 NO_READING when none). */
  async currentEvent(type: string): Promise<Envelope> {
    if (!UNADDRESSABLE_TYPES.has(type)) return this.call('GET', `current/${encodeURIComponent(type)}`);
    // read it from the whole view, and answer a missing one as the daemon would
    const { current } = await this.call<CurrentAnswer>('GET', 'current');
    if (Object.hasOwn(current, type)) return current[type]!;
    const detail = `There is no current reading of type ${JSON.stringify(type)}.`;
    const url = `${this.baseUrl}/current`;
    throw new TelemetryClientError(`GET ${url} answered 404 NO_READING: ${detail}`,
      { statusCode: 404, detail, code: 'NO_READING', method: 'GET', url });
  }

  /**
   * GET /history page by page: `for await (const page of client.history({types: ['weather'], from: '-2h'}))`.
   * Each page holds events in record order; the iteration ends when the daemon has no more.
   */
  history(options: HistoryOptions = {}): AsyncGenerator<HistoryPage, void, undefined> {
    return historyPages(async (query) => {
      const answer = await this.call<{ events: Envelope[]; next_cursor: string | null; damaged?: DamagedFile[] }>('GET', query ? `history?${query}` : 'history');
      return { events: answer.events, nextCursor: answer.next_cursor, ...(answer.damaged ? { damaged: answer.damaged } : {}) };
    }, options);
  }

  /** history(), each page also holding its events as the daemon's text (`texts[i]` is `events[i]` as sent). */
  historyWithText(options: HistoryOptions = {}): AsyncGenerator<HistoryTextPage, void, undefined> {
    return historyPages(async (query) => {
      const response = await this.send('GET', query ? `history?${query}` : 'history');
      const answer = response.body as unknown as { events: Envelope[]; next_cursor: string | null; damaged?: DamagedFile[] };
      return { events: answer.events, nextCursor: answer.next_cursor, texts: historyEnvelopeTexts(response.rawBody.toString('utf8')),
        ...(answer.damaged ? { damaged: answer.damaged } : {}) };
    }, options);
  }

  /** GET /history with a type and step: a type's rollup buckets (numbers decoded; rollupText() keeps them as spelled). */
  rollup(type: string, options: RollupOptions = {}): Promise<RollupAnswer> {
    return this.call('GET', rollupPath(type, options));
  }

  /** rollup() with the answer's text as the daemon sent it (first/last/min/max as recorded). */
  async rollupText(type: string, options: RollupOptions = {}): Promise<{ answer: RollupAnswer; text: string }> {
    const response = await this.send('GET', rollupPath(type, options));
    return { answer: response.body as unknown as RollupAnswer, text: response.rawBody.toString('utf8') };
  }

  /** POST /rollups/rebuild: every rollup tier made again from the recorded files; resolves once in place. */
  rebuildRollups(): Promise<RebuildAnswer> {
    return this.call('POST', 'rollups/rebuild');
  }

  /** GET /stream: the current view (or a replay after `since`), then every event as recorded, reconnecting and resuming when the connection is lost; ends on `options.signal` or `break`. */
  stream(options: StreamOptions = {}): AsyncGenerator<StreamMessage, void, undefined> {
    return streamMessages({ http: this.streamHttp, baseUrl: this.baseUrl, timeoutSeconds: this.timeoutSeconds }, options);
  }

  /** GET /reports/night/{day} or ?run=ID: the report's JSON text as the daemon sent it (weather min/max spelled as recorded). */
  nightReportText = async (which: ReportChoice): Promise<string> => (await this.send('GET', nightReportPath(which))).rawBody.toString('utf8');

  /** GET /ready with the daemon's clock (its `Date` header, epoch ms) when it sent one. */
  async readyAt(): Promise<{ ready: ReadyAnswer; serverTime: number | undefined }> {
    const response = await this.send('GET', 'ready');
    const date = response.headers.date ? Date.parse(response.headers.date) : NaN;
    return { ready: response.body as unknown as ReadyAnswer, serverTime: Number.isNaN(date) ? undefined : date };
  }

  /** GET /current with `If-None-Match` (without freshness: the poller judges ages itself): cheap polling that also reports the daemon's clock. */
  async pollCurrent(etag?: string): Promise<CurrentPoll> {
    const response = await this.send('GET', 'current', undefined, etag ? { 'if-none-match': etag } : {});
    const date = response.headers.date ? Date.parse(response.headers.date) : NaN;
    const changed = response.statusCode !== 304;
    return {
      changed,
      current: changed ? (response.body as unknown as CurrentAnswer).current : undefined,
      texts: changed ? currentEnvelopeTexts(response.rawBody.toString('utf8')) : undefined,
      etag: response.headers.etag,
      serverTime: Number.isNaN(date) ? undefined : date,
    };
  }

  /** POST /shutdown: ask the daemon to exit cleanly. */
  shutdown(): Promise<ShutdownAnswer> {
    return this.call('POST', 'shutdown');
  }

  /**
   * Close the connections this client opened: a request in flight rejects at once with a
   * TelemetryConnectionError (for a program that stops watching a daemon that does not
   * answer). A `session`'s own agent is left alone. Later calls open new connections.
   */
  close(): void {
    this.agent?.destroy();
  }

  protected async call<T>(method: AlarmMethod, path: string, body?: RequestBody): Promise<T> {
    return (await this.send(method, path, body)).body as T;
  }

  protected async text(path: string): Promise<string> {
    return (await this.send('GET', path)).rawBody.toString('utf8');
  }

  private async send(method: AlarmMethod, path: string, body?: RequestBody | string, headers: Record<string, string> = {}) {
    // serialised here, so a value JSON cannot hold (a BigInt, a cycle) throws its own TypeError; a string is JSON text already
    const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
    if (payload !== undefined) headers = { ...headers, 'content-type': 'application/json' };
    try {
      return await this.http(path, { method, body: payload, headers });
    } catch (error) {
      throw toClientError(error, { method, baseUrl: this.baseUrl, path, timeoutSeconds: this.timeoutSeconds });
    }
  }
}
