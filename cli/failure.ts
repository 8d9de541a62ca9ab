import { TelemetryAnswerError, TelemetryClientError, TelemetryConnectionError } from '../client/errors.js';
import { connectionReason } from '../client/connection-reason.js';
import { TelemetryStartError } from '../launcher/launch-failure.js';
import { ConfigError } from '../lib/errors.js';
import { UsageError } from './options.js';

// The one place where an error becomes a message and an exit code:
// 0 done, 1 the daemon answered an error (or a command failed), 2 usage, 3 no daemon reachable,
// 4 the reading asked for is stale or missing, `safety` says unsafe, or (fleet) a unit is silent.

/** Exit codes of every command. */
export const EXIT = { OK: 0, DAEMON_ERROR: 1, USAGE: 2, NO_DAEMON: 3, NOT_FRESH: 4, UNSAFE: 4 } as const;

/** The reading `current TYPE` was asked for is stale or missing (exit 4); the message says its age. */
export class NotFresh extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFresh';
  }
}

/** A command failed for a reason it states in one line (exit 1): `stop` timed out, ... */
export class CommandFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailure';
  }
}

/** The peer a command reads (the fleet's database) cannot be reached (exit 3, as no daemon). */
export class NoPeer extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoPeer';
  }
}

/** Where the failure happened: the executable and, once known, the command (for the `--help` hint). */
export interface FailureContext {
  name: string;
  prefix: string;
  command: string | undefined;
}

/** The exit code and the stderr text (`<name>: <reason>`, one line; a stack only for a bug). */
export function describeFailure(error: unknown, ctx: FailureContext): { code: number; message: string } {
  const line = (code: number, text: string) => ({ code, message: `${ctx.name}: ${text}\n` });
  if (error instanceof UsageError || error instanceof ConfigError) {
    const help = ctx.command === undefined ? `${ctx.name} --help` : `${ctx.name} ${ctx.command} --help`;
    return line(EXIT.USAGE, `${error.message} (see "${help}")`);
  }
  if (error instanceof TelemetryConnectionError) {
    const address = addressOf(error.url);
    if (error.timedOut) return line(EXIT.NO_DAEMON, `no answer from the telemetry daemon at ${address} within the timeout`);
    return line(EXIT.NO_DAEMON, `no telemetry daemon at ${address} (${connectionReason(error.reason)})`);
  }
  // a 2xx that is not the answer asked for: the daemon (or what answers on its port) is at fault
  if (error instanceof TelemetryAnswerError) return line(EXIT.DAEMON_ERROR, error.detail);
  const foreign = foreignServer(error);
  if (foreign !== undefined) return line(EXIT.NO_DAEMON, `no telemetry daemon at ${addressOf((error as TelemetryClientError).url)} (${foreign})`);
  if (error instanceof TelemetryClientError) return line(EXIT.DAEMON_ERROR, `${sentence(error.detail)} (${error.code})`);
  if (error instanceof TelemetryStartError) return line(EXIT.DAEMON_ERROR, `the daemon did not start: ${error.reason}`);
  if (error instanceof CommandFailure) return line(EXIT.DAEMON_ERROR, error.message);
  if (error instanceof NoPeer) return line(EXIT.NO_DAEMON, error.message);
  if (error instanceof NotFresh) return line(EXIT.NOT_FRESH, error.message);
  // a bug, not a user mistake: the stack helps the report
  const text = error instanceof Error ? error.stack ?? error.message : String(error);
  return { code: EXIT.DAEMON_ERROR, message: `${ctx.name}: internal error: ${text}\n` };
}

/**
 * Why an answer came from something that is not a telemetry daemon (every error the daemon
 * answers carries a stable `code`; a web server, proxy or other service on the port does
 * not), or undefined when it is the daemon's own answer (or no answer at all).
 */
export function foreignServer(error: unknown): string | undefined {
  if (!(error instanceof TelemetryClientError) || error instanceof TelemetryConnectionError || error.code !== undefined) return undefined;
  return `another kind of server answers there: ${error.statusCode} ${error.detail}`;
}

/** `host:port` of a request URL. */
function addressOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The daemon's detail sentence as a clause: "There is no reading." -> "there is no reading"; other text as is. */
function sentence(detail: string): string {
  const text = detail.trim();
  if (!text.endsWith('.')) return text;
  const clause = text.slice(0, -1);
  return /^[A-Z][a-z]/.test(clause) ? clause[0]!.toLowerCase() + clause.slice(1) : clause;
}
