// The error catalogue: every error the daemon can answer, with its stable code and
// HTTP status. docs/errors.md lists the same table; a test fails when they drift.

/** Catalogue entry: the status a code is answered with and what it means. */
export interface ErrorSpec {
  readonly status: number;
  readonly meaning: string;
}

/** Every stable error code, its HTTP status and a one-line meaning. */
export const ERROR_CATALOGUE = {
  MALFORMED_JSON: { status: 400, meaning: 'The request body is not valid JSON.' },
  INVALID_HOST: { status: 400, meaning: 'The `Host` header (or the authority of an absolute request target) is not a host name or address with an optional port (it holds a user, a path, a bad port), is given twice, or is missing from an HTTP/1.1 request.' },
  UNAUTHORIZED: { status: 401, meaning: 'A token is configured and the request carries no `Authorization: Bearer` credentials.' },
  FORBIDDEN: { status: 403, meaning: 'Wrong token, a browser request (`Origin` header or foreign `Host`), or `/shutdown` from a non-loopback client without the token.' },
  NOT_FOUND: { status: 404, meaning: 'No such path.' },
  NO_ACTIVE_RUN: { status: 404, meaning: 'The request needs an active run and none is active.' },
  NO_READING: { status: 404, meaning: 'The current view holds no reading of that type.' },
  UNKNOWN_ALARM: { status: 404, meaning: 'No alarm of that id is configured (`[[alarm]]` in the daemon\'s `--config` file).' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'The path exists but not with this method.' },
  RUN_ACTIVE: { status: 409, meaning: 'A run is already active; it was left untouched.' },
  ALARM_NOT_UNACKED: { status: 409, meaning: 'The alarm has nothing to acknowledge (it is normal, already acknowledged, or shelved); it was left as it was.' },
  ALARM_CHANGED: { status: 409, meaning: 'The alarm changed since the acknowledging client saw it (another severity, or another transition); it was left as it was and the answer holds it as it is now.' },
  ALARM_NOT_SHELVED: { status: 409, meaning: 'The alarm is not shelved, so there is nothing to unshelve; it was left as it was.' },
  ROLLUPS_OFF: { status: 409, meaning: 'The daemon runs with `--rollups off`: it keeps no rollup tiers to answer or rebuild.' },
  BODY_TOO_LARGE: { status: 413, meaning: 'The request body exceeds the configured limit (`--max-body`).' },
  BATCH_TOO_LARGE: { status: 413, meaning: 'A batch (`POST /events`) holds more events than the maximum (10,000); nothing was recorded.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The request has a body whose `Content-Type` is not `application/json`, or that is declared compressed.' },
  INVALID_ENCODING: { status: 422, meaning: 'The body (or a line of an NDJSON batch) is not valid UTF-8 text; nothing of it was recorded.' },
  INVALID_MAX_AGE: { status: 422, meaning: 'An event\'s `max_age_s` (or `meta.max_age_s`) is not a positive number of seconds or null; nothing was recorded.' },
  INVALID_BODY: { status: 422, meaning: 'The body is JSON but not of the expected shape (a field is missing or ill-typed).' },
  INVALID_RUN: { status: 422, meaning: 'The run id or run directory is unsafe or unusable.' },
  INVALID_QUERY: { status: 422, meaning: 'A query parameter is unknown or has a value the endpoint does not take.' },
  INVALID_NIGHT: { status: 422, meaning: 'The night of `GET /reports/night/{day}` is not a site day written YYYYMMDD (a real date).' },
  INVALID_CURSOR: { status: 422, meaning: 'A cursor (`cursor`, `since`, `Last-Event-ID`) is malformed or names no recorded position.' },
  INVALID_BATCH: { status: 422, meaning: 'Events of a batch (`POST /events`) are invalid; `failures` lists each by index; nothing was recorded.' },
  BATCH_PARTLY_RECORDED: { status: 422, meaning: 'With `?partial=true`: the valid events of a batch were recorded, the invalid ones (`failures`) were not.' },
  INTERNAL: { status: 500, meaning: 'An unexpected error; it is logged with its stack, nothing internal is answered.' },
  NOT_SYNCED: { status: 500, meaning: '`--fsync always`: the event was written (it has its seq, is in its file and the current view) but the sync to disk failed; sending it again would record it twice.' },
  DISK_FULL: { status: 503, meaning: 'The disk is full (or the quota used up); nothing was recorded and no seq was consumed; reading goes on and writing resumes once there is space.' },
  STORAGE_UNAVAILABLE: { status: 503, meaning: 'Writing to disk failed; nothing was recorded and no seq was consumed.' },
  STREAM_OVERFLOW: { status: 503, meaning: 'A `/stream` client read too slowly and was dropped (sent as a `dropped` event, then the stream ends).' },
} as const satisfies Record<string, ErrorSpec>;

/** A stable error code from the catalogue. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** A domain error: carries a stable code and the HTTP status it is answered with. */
export class MeridianError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Fields the error answer carries after `detail` and `code` (a batch's `failures`). */
  readonly fields: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, detail: string, options?: { cause?: unknown; fields?: Record<string, unknown> }) {
    super(detail, options);
    this.name = 'MeridianError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.fields = options?.fields;
  }
}

// what JSON.stringify leaves as it is and a terminal obeys or hides: DEL, the C1 controls, the line separators, the bidi overrides and isolates
const INVISIBLE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A configuration value that is out of range or of the wrong form (CLI exit 2). */
export class ConfigError extends Error {
  readonly option: string;

  constructor(option: string, expected: string, given: unknown) {
    // JSON.stringify would show NaN and Infinity as null; it leaves DEL, the C1 controls (0x9b starts a terminal
    // sequence), the bidi overrides and the line separators as they are: escaped here, the text still JSON
    const shown = typeof given === 'number' ? String(given) : JSON.stringify(given)?.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    super(`${option} must be ${expected}; got ${shown}`);
    this.name = 'ConfigError';
    this.option = option;
  }
}
