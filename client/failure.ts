import { HTTPError, RequestError, TimeoutError } from 'got';
import { connectionReason } from './connection-reason.js';
import { TelemetryClientError, TelemetryConnectionError } from './errors.js';


// The one place where a failed got request becomes a TelemetryClientError (an error answer)
// or a TelemetryConnectionError (no answer at all).

/** The request that failed, as the error message and fields name it. */
export interface FailedRequest {
  method: 'GET' | 'POST' | 'DELETE';
  baseUrl: string;
  /** The path under baseUrl, without the leading slash. */
  path: string;
  timeoutSeconds: number;
}

/**
 * Map what got rejected with: an error status to TelemetryClientError, no answer (refused,
 * unresolved, reset, timed out, not HTTP) to TelemetryConnectionError. Anything else (a
 * session hook that threw, say) is returned unchanged.
 */
export function toClientError(error: unknown, request: FailedRequest): unknown {
  const { method, baseUrl } = request;
  const url = `${baseUrl}/${request.path}`;
  const what = `${method} /${request.path}`;
  if (error instanceof HTTPError) {
    const answer = decodedBody(error.response.body) as { detail?: unknown; code?: unknown } | undefined;
    const detail = typeof answer?.detail === 'string' ? answer.detail : error.response.statusMessage || error.message;
    const code = typeof answer?.code === 'string' ? answer.code : undefined;
    const statusCode = error.response.statusCode;
    const body = typeof answer === 'object' && answer !== null && !Array.isArray(answer) ? answer as Record<string, unknown> : undefined;
    return new TelemetryClientError(`${method} ${url} answered ${statusCode}${code ? ` ${code}` : ''}: ${detail}`,
      { statusCode, detail, code, method, url, cause: error, answer: body });
  }
  if (error instanceof TimeoutError) {
    const limit = error.event === 'request' ? `within ${request.timeoutSeconds} s` : `before its ${error.event} timeout`;
    return new TelemetryConnectionError(`the telemetry daemon at ${baseUrl} did not answer ${limit} (${what})`,
      { reason: 'ETIMEDOUT', timedOut: true, method, url, cause: error });
  }
  if (error instanceof RequestError && !error.response && isNetworkCode(error.code)) {
    const why = connectionReason(error.code);
    return new TelemetryConnectionError(`no telemetry daemon at ${baseUrl}: ${why} (${error.code}; ${what})`,
      { reason: error.code, timedOut: false, method, url, cause: error });
  }
  if (error instanceof Error && (error as NodeJS.ErrnoException).code === 'ERR_SOCKET_CLOSED_BEFORE_CONNECTION') {
    // Node >= 24.20: a socket closed while still connecting (close() at that moment) rejects
    // with this plain Error, where older Nodes give got's RequestError ECONNRESET
    return new TelemetryConnectionError(`no telemetry daemon at ${baseUrl}: ${connectionReason('ECONNRESET')} (ECONNRESET; ${what})`,
      { reason: 'ECONNRESET', timedOut: false, method, url, cause: error });
  }
  if (error instanceof RequestError && error.response) {
    const statusCode = error.response.statusCode;
    return new TelemetryClientError(`${method} ${url} gave an unusable answer (${statusCode}): ${error.message}`,
      { statusCode, detail: error.message, method, url, cause: error });
  }
  return error;
}

// System error codes (ECONNREFUSED, EAI_AGAIN) and HTTP parser codes, not got's own ERR_* codes.
function isNetworkCode(code: string): boolean {
  return (/^E[A-Z0-9_]+$/.test(code) && !code.startsWith('ERR_')) || code.startsWith('HPE_');
}

/** An error answer's body: decoded by got for JSON requests, text for a raw one (decoded here when it is JSON). */
function decodedBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
