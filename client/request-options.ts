import type { Envelope, JsonObject, JsonValue } from '../lib/wire.js';

// What the methods of TelemetryClient take (and the answer of a conditional poll): the
// request shapes in camelCase, turned into the wire's snake_case by client.ts.

/** What `startRun()` takes; every field optional (the daemon derives the run id and directory). */
export interface StartRunOptions {
  /** The run's directory: absolute, or relative to the daemon's site directory. */
  runDir?: string;
  /** The run's id (a safe path segment); default `meta.run_id`, else the next number. */
  runId?: string;
  /** Run metadata, kept in the run record. */
  meta?: JsonObject;
}

/** What `postEventText()` takes besides the type and the data's JSON text. */
export interface PostEventTextOptions {
  makeCurrent?: boolean;
  maxAgeS?: number;
  /** The caller metadata as JSON text (an object), sent as spelled. */
  metaText?: string;
}

/** What `postEvent()` takes besides the type and data. */
export interface PostEventOptions {
  /** False: record the event but leave the current view as it was (default true). */
  makeCurrent?: boolean;
  /** This reading's maximum age in seconds, instead of the daemon's `--max-age` (kept as `meta.max_age_s`). */
  maxAgeS?: number;
  /** Caller metadata stored with the event (during a run the daemon sets `meta.run_id`). */
  meta?: JsonObject;
}

/** One event of `postEvents()`. */
export interface BatchEvent {
  type: string;
  data: JsonValue;
  /** False: record it but leave the current view as it was (default true). */
  makeCurrent?: boolean;
  /** Its maximum age in seconds, instead of the daemon's `--max-age` (kept as `meta.max_age_s`). */
  maxAgeS?: number;
  meta?: JsonObject;
}

/** What `postEvents()` and `postEventLines()` take. */
export interface PostEventsOptions {
  /**
   * Record the valid events even when others are invalid. The call then still rejects
   * (422 BATCH_PARTLY_RECORDED) when any was invalid: `error.answer` says which were recorded.
   */
  partial?: boolean;
}

/** What `current()` may narrow the view to (the query of `GET /current`), and whether it asks for freshness. */
export interface CurrentFilter {
  /** Only these types. */
  types?: readonly string[];
  /** Only stale types (true) or only fresh ones (false). */
  stale?: boolean;
  /** Ask for `freshness` beside `current` (default true; false: the original service's body alone). */
  freshness?: boolean;
}

/** The answer to a conditional `/current` poll. */
export interface CurrentPoll {
  /** False when the daemon answered 304: nothing changed since `etag`. */
  changed: boolean;
  /** The view (only when changed). */
  current: Record<string, Envelope> | undefined;
  /** Each envelope of the view as the daemon's text, by type (only when changed). */
  texts: Map<string, string> | undefined;
  etag: string | undefined;
  /** The daemon's clock (its `Date` header) in epoch ms, when it sent one. */
  serverTime: number | undefined;
}
