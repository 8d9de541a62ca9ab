import { terminalText } from '../lib/terminal-text.js';

// What a command may touch of the world, handed in by the entry (cli/entry.ts): the
// environment, the clock, the two output streams and whether they are terminals.

/** The environment as the entry read it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The world as one command sees it. */
export interface CliIo {
  /** The executable's name, "telemetry" or "meridian": the prefix of every message. */
  readonly name: string;
  /** "" for `telemetry`, "telemetry " for `meridian`: what comes before a command's name. */
  readonly prefix: string;
  readonly env: Env;
  /** The local clock, epoch ms. */
  now(): number;
  /** Data: stdout. */
  out(text: string): void;
  /** Messages: stderr. */
  err(text: string): void;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  /** stderr is a terminal (progress bars are drawn there). */
  readonly stderrIsTTY: boolean;
  /** Terminal width of stdout (80 when unknown). */
  readonly columns: number;
  /** Colour on stdout: stdout is a terminal, NO_COLOR is unset or empty and TERM is not `dumb`. */
  readonly color: boolean;
  /** A signal aborted on SIGINT/SIGTERM or once stdout's reader has gone (EPIPE); commands that run until stopped use it. */
  stopSignal(): AbortSignal;
}

/** Write one message line to stderr: `<name>: <text>` (on a terminal, what it quotes of recorded data neutralised: lib/terminal-text.ts). */
export function say(io: CliIo, text: string): void {
  const line = `${io.name}: ${text}\n`;
  io.err(io.stderrIsTTY ? terminalText(line) : line);
}

/**
 * Write text that holds recorded data (types, run ids, data, meta, a daemon's error) to stdout:
 * on a terminal its controls and bidi overrides become U+FFFD; piped, byte-exact (Exact).
 */
export function show(io: CliIo, text: string): void {
  io.out(io.stdoutIsTTY ? terminalText(text) : text);
}
