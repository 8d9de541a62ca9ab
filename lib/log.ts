// A small leveled logger writing one line per message to an injected destination.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** What the daemon logs through; entry files choose the destination. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

/** A logger writing `<iso time> <LEVEL> <message>` lines at or above `level`. */
export function createLogger(write: (line: string) => void, level: LogLevel, now: () => number = Date.now): Logger {
  const emit = (at: LogLevel, message: string) => {
    if (RANK[at] >= RANK[level]) write(`${new Date(now()).toISOString()} ${at.toUpperCase()} ${message}\n`);
  };
  return {
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m, error) => emit('error', error instanceof Error && error.stack ? `${m}\n${error.stack}` : m),
  };
}

/** A logger that drops everything (for embedding and tests that do not read logs). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
