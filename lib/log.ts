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

/**
 * A logger writing lines at or above `level`: `<iso time> <LEVEL> <message>`, or with
 * format `json` one object per line, `{"time","level","msg"}` (plus `"stack"` for an error
 * with one), for log shippers.
 */
export function createLogger(write: (line: string) => void, level: LogLevel, now: () => number = Date.now,
  format: 'text' | 'json' = 'text'): Logger {
  const emit = (at: LogLevel, message: string, stack?: string) => {
    if (RANK[at] < RANK[level]) return;
    const time = new Date(now()).toISOString();
    if (format === 'json') {
      write(`${JSON.stringify({ time, level: at, msg: message, ...(stack ? { stack } : {}) })}\n`);
    } else {
      write(`${time} ${at.toUpperCase()} ${stack ? `${message}\n${stack}` : message}\n`);
    }
  };
  return {
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m, error) => emit('error', m, error instanceof Error ? error.stack : undefined),
  };
}

/** A logger that drops everything (for embedding and tests that do not read logs). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
