import http from 'node:http';
import got, { HTTPError, RequestError, TimeoutError, type Got, type OptionsInit } from 'got';
import { parsePort, resolveClientAddress } from '../lib/config.js';
import type {
  CurrentAnswer, Envelope, HealthAnswer, JsonObject, JsonValue, ReadyAnswer, RunRecord, ShutdownAnswer, StatusAnswer,
  StoppedRunRecord,
} from '../lib/wire.js';
import { TelemetryClientError, TelemetryConnectionError } from './errors.js';

// TelemetryClient: the whole HTTP API as typed methods (camelCase outside, snake_case on the wire).

/** Options of `new TelemetryClient()`; every one optional. */
export interface TelemetryClientOptions {
  /** Daemon host; default MERIDIAN_TELEMETRY_HOST, else localhost. */
  host?: string;
  /** Daemon port (number or numeric string); default MERIDIAN_TELEMETRY_PORT, else 6562. */
  port?: number | string;
  /** Seconds before a request gives up (default 5). */
  timeout?: number;
  /** A got instance to build on (its agent, hooks and headers are kept). */
  session?: Got;
  /** Full base URL such as `http://127.0.0.1:7000`; wins over host and port. */
  baseUrl?: string;
  /** Bearer token; default MERIDIAN_TELEMETRY_TOKEN. */
  token?: string;
  /** Environment to read defaults from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The answer to a conditional `/current` poll. */
export interface CurrentPoll {
  /** False when the daemon answered 304: nothing changed since `etag`. */
  changed: boolean;
  /** The view (only when changed). */
  current: Record<string, Envelope> | undefined;
  etag: string | undefined;
  /** The daemon's clock (its `Date` header) in epoch ms, when it sent one. */
  serverTime: number | undefined;
}

/** A client for the Meridian telemetry daemon. */
export class TelemetryClient {
  /** The base URL requests go to, e.g. `http://localhost:6562`. */
  readonly baseUrl: string;
  private readonly http: Got;

  constructor(options: TelemetryClientOptions = {}) {
    const env = options.env ?? process.env;
    const timeout = options.timeout ?? 5.0;
    if (typeof timeout !== 'number' || !(timeout > 0)) {
      throw new TypeError(`timeout must be a positive number of seconds; got ${JSON.stringify(timeout)}`);
    }
    if (options.port !== undefined) parsePort(options.port, 'port');
    const address = resolveClientAddress({ host: options.host, port: options.port, token: options.token }, env);
    this.baseUrl = (options.baseUrl ?? `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`)
      .replace(/\/+$/, '');
    const init: OptionsInit = {
      prefixUrl: this.baseUrl,
      timeout: { request: Math.round(timeout * 1000) },
      retry: { limit: 0 },
      responseType: 'json',
      headers: address.token ? { authorization: `Bearer ${address.token}` } : {},
    };
    if (!options.session) init.agent = { http: new http.Agent({ keepAlive: true }) };
    this.http = (options.session ?? got).extend(init);
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
  startRun(options: { runDir?: string; runId?: string; meta?: JsonObject } = {}): Promise<RunRecord> {
    const body: Record<string, unknown> = {};
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
  postEvent(type: string, data: JsonValue, options: { makeCurrent?: boolean; meta?: JsonObject } = {}): Promise<Envelope> {
    const body: Record<string, unknown> = { type, data, make_current: options.makeCurrent ?? true };
    if (options.meta !== undefined) body.meta = options.meta;
    return this.call('POST', 'event', body);
  }

  /** GET /current: the latest envelope of every type. */
  current(): Promise<CurrentAnswer> {
    return this.call('GET', 'current');
  }

  /** GET /current/{type}: the latest envelope of one type (404 NO_READING when none). */
  currentEvent(type: string): Promise<Envelope> {
    return this.call('GET', `current/${encodeURIComponent(type)}`);
  }

  /** GET /current with `If-None-Match`: cheap polling that also reports the daemon's clock. */
  async pollCurrent(etag?: string): Promise<CurrentPoll> {
    const response = await this.send('GET', 'current', undefined, etag ? { 'if-none-match': etag } : {});
    const date = response.headers.date ? Date.parse(response.headers.date) : NaN;
    const changed = response.statusCode !== 304;
    return {
      changed,
      current: changed ? (response.body as unknown as CurrentAnswer).current : undefined,
      etag: response.headers.etag,
      serverTime: Number.isNaN(date) ? undefined : date,
    };
  }

  /** POST /shutdown: ask the daemon to exit cleanly. */
  shutdown(): Promise<ShutdownAnswer> {
    return this.call('POST', 'shutdown');
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    return (await this.send(method, path, body)).body as T;
  }

  private async send(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
    const url = `${this.baseUrl}/${path}`;
    try {
      return await this.http(path, { method, json: body, headers });
    } catch (error) {
      throw toClientError(error, method, url);
    }
  }
}

function toClientError(error: unknown, method: string, url: string): Error {
  if (error instanceof HTTPError) {
    const answer = error.response.body as { detail?: unknown; code?: unknown } | undefined;
    const detail = typeof answer?.detail === 'string' ? answer.detail : error.response.statusMessage ?? error.message;
    const code = typeof answer?.code === 'string' ? answer.code : undefined;
    const statusCode = error.response.statusCode;
    return new TelemetryClientError(`${method} ${url} answered ${statusCode}${code ? ` ${code}` : ''}: ${detail}`,
      { statusCode, detail, code, method, url, cause: error });
  }
  if (error instanceof TimeoutError) {
    return new TelemetryConnectionError(`no answer from the telemetry daemon at ${url} within the timeout`,
      { reason: 'ETIMEDOUT', timedOut: true, method, url, cause: error });
  }
  if (error instanceof RequestError && !error.response) {
    const reason = error.code ?? 'ERR';
    const why = reason === 'ECONNREFUSED' ? 'connection refused' : reason === 'ENOTFOUND' ? 'host not found' : reason;
    return new TelemetryConnectionError(`no telemetry daemon at ${url} (${why})`, { reason, timedOut: false, method, url, cause: error });
  }
  if (error instanceof RequestError && error.response) {
    const statusCode = error.response.statusCode;
    return new TelemetryClientError(`${method} ${url} gave an unusable answer (${error.message})`,
      { statusCode, detail: error.message, method, url, cause: error });
  }
  return error as Error;
}
