// Why a daemon started in the background did not come up, as one line: the error the
// launcher rejects with, and the reason read from what the daemon wrote to its log.

/** The daemon did not start: it exited first, did not answer in time, or its log could not be opened. */
export class TelemetryStartError extends Error {
  /** One line: the daemon's own reason (from its log) or what the launcher saw. */
  readonly reason: string;
  readonly logFile: string;
  /** The child's pid when it was spawned. */
  readonly pid: number | undefined;
  /** The child's exit code when it exited. */
  readonly exitCode: number | undefined;
  /** True when the deadline passed while the child was still running. */
  readonly timedOut: boolean;

  constructor(reason: string, fields: { logFile: string; pid?: number; exitCode?: number; timedOut?: boolean; cause?: unknown }) {
    super(`the telemetry daemon did not start: ${reason}`, { cause: fields.cause });
    this.name = 'TelemetryStartError';
    this.reason = reason;
    this.logFile = fields.logFile;
    this.pid = fields.pid;
    this.exitCode = fields.exitCode;
    this.timedOut = fields.timedOut ?? false;
  }
}

const LOG_ERROR = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ERROR (.+)$/;
const CLI_MESSAGE = /^(?:meridian|telemetry): (.+)$/;

/**
 * The reason in what a daemon wrote before it exited: its last `ERROR` log line without the
 * `<iso time> ERROR ` prefix; else its last `meridian: ...` message (a bad option); else
 * undefined (it died some other way, e.g. a crash with a stack: the caller points at the log).
 */
export function startFailureReason(logText: string): string | undefined {
  const lines = logText.split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l !== '').map(jsonLogAsText);
  for (const pattern of [LOG_ERROR, CLI_MESSAGE]) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const match = pattern.exec(lines[i]!);
      if (match) return match[1]!;
    }
  }
  return undefined;
}

/** A `--log-format json` line as its text form (`<time> ERROR <msg>`), any other line as it is. */
function jsonLogAsText(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const { time, level, msg } = JSON.parse(line) as { time?: unknown; level?: unknown; msg?: unknown };
    return typeof time === 'string' && typeof level === 'string' && typeof msg === 'string' ? `${time} ${level.toUpperCase()} ${msg}` : line;
  } catch {
    return line;
  }
}
