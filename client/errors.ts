// The errors the client rejects with: one for error answers, a subclass for no answer at all.

/** The daemon answered with an error status (`statusCode`), or its answer was unusable. */
export class TelemetryClientError extends Error {
  readonly statusCode: number;
  readonly detail: string;
  /** The daemon's stable error code (NO_READING, RUN_ACTIVE, ...) when it sent one. */
  readonly code: string | undefined;
  readonly method: string;
  readonly url: string;
  /** The decoded error answer when it was a JSON object: `failures` of a batch are here. */
  readonly answer: Readonly<Record<string, unknown>> | undefined;

  constructor(message: string, fields: {
    statusCode: number; detail: string; code?: string; method: string; url: string; cause?: unknown; answer?: Record<string, unknown>;
  }) {
    super(message, { cause: fields.cause });
    this.name = 'TelemetryClientError';
    this.statusCode = fields.statusCode;
    this.detail = fields.detail;
    this.code = fields.code;
    this.method = fields.method;
    this.url = fields.url;
    this.answer = fields.answer;
  }
}

/** No daemon answered: refused, name not resolved, reset, not HTTP, or timed out (`statusCode` 0). */
export class TelemetryConnectionError extends TelemetryClientError {
  /** The low-level reason: ECONNREFUSED, ENOTFOUND, EAI_AGAIN, ECONNRESET, ETIMEDOUT, HPE_... */
  readonly reason: string;
  /** Whether the request timed out (as opposed to never connecting). */
  readonly timedOut: boolean;

  constructor(message: string, fields: { reason: string; timedOut: boolean; method: string; url: string; cause?: unknown }) {
    super(message, { statusCode: 0, detail: message, method: fields.method, url: fields.url, cause: fields.cause });
    this.name = 'TelemetryConnectionError';
    this.reason = fields.reason;
    this.timedOut = fields.timedOut;
  }
}

/** The daemon answered 2xx, but not with the answer asked for (`{}` for a safety verdict): `detail` says what is wrong. */
export class TelemetryAnswerError extends TelemetryClientError {
  constructor(fields: { statusCode: number; detail: string; method: string; url: string; cause?: unknown }) {
    super(fields.detail, fields);
    this.name = 'TelemetryAnswerError';
  }
}
