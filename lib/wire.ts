// The wire types: what travels over HTTP and lies in the files. Shared by daemon,
// client and console. Keys stay snake_case as on the wire.

/** What an event type never contains: C0 controls, DEL and C1 controls. */
export const TYPE_FORBIDDEN_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** One recorded event, as answered by POST /event and stored as one NDJSON line. */
export interface Envelope {
  seq: number;
  ts: string;
  type: string;
  data: JsonValue;
  meta: JsonObject;
}

/** The body of POST /event. */
export interface EventRequest {
  type: string;
  data: JsonValue;
  make_current?: boolean;
  /** false: update the current view and use a seq, but write no line (an ephemeral reading). */
  store_permanently?: boolean;
  /** The reading's own time, ISO-8601 with Z or an offset (null: the daemon's clock). */
  ts?: string | null;
  meta?: JsonObject;
}

/** The body of POST /run/start (every field optional; null means not given). */
export interface RunStartRequest {
  run_dir?: string | null;
  run_id?: string | null;
  meta?: JsonObject | null;
}

/** The record of a run, as answered by GET /run and POST /run/start. */
export interface RunRecord {
  run_dir: string;
  run_id: string;
  meta: JsonObject;
  started_at: string;
}

/** The answer to POST /run/stop: the record of the run that was active. */
export interface StoppedRunRecord extends RunRecord {
  stopped_at: string;
}

/** GET /health. */
export interface HealthAnswer {
  ok: true;
}

/** GET /ready. */
export interface ReadyAnswer {
  ready: true;
  run_active: boolean;
  version: string;
}

/** GET /status: who is answering, since when, and what it holds. */
export interface StatusAnswer {
  version: string;
  /** The daemon's process id. */
  pid: number;
  /** When the daemon started listening (ts format). */
  started_at: string;
  /** The address it is bound to, `host:port`. */
  address: string;
  /** The active run's id, or null outside a run. */
  run_id: string | null;
  /** How many event types the current view holds. */
  types: number;
  /** Events recorded since the daemon started: written to a file, and ephemeral (store_permanently false). */
  recorded: { permanent: number; ephemeral: number };
  /** Whether requests need a token. */
  authenticated: boolean;
  /** Present only when the daemon listens beyond loopback without a token (--allow-unauthenticated). */
  warning?: string;
}

/** GET /current. */
export interface CurrentAnswer {
  current: Record<string, Envelope>;
}

/** POST /shutdown. */
export interface ShutdownAnswer {
  shutting_down: true;
}

/** Every error answer. */
export interface ErrorAnswer {
  detail: string;
  code: string;
}
