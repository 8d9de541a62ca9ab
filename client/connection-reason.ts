// Connection error codes in words, for messages. Kept apart from failure.ts, which imports
// got: the CLI names a refused connection on every command, `telemetry run` included, and the
// daemon that command becomes should not load got (~20 MB) for it.

// the readable reason of the system error codes a caller meets when no daemon answers
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host name not resolved',
  EAI_AGAIN: 'host name not resolved',
  EAI_FAIL: 'host name not resolved',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
};

/** What a connection error code means, in words (the code itself when there are none). */
export function connectionReason(code: string): string {
  return REASONS[code] ?? (code.startsWith('HPE_') ? 'the answer is not HTTP' : code);
}
