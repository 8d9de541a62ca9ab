import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { cleanEnv, TELEMETRY_BIN } from './daemon.js';

// A real terminal for the CLI and the live console: a tmux server on a private socket, one
// session running one command line, keys sent with send-keys, the screen read with
// capture-pane. Waits poll the screen with a deadline.

let sessions = 0;

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** What the pane says once the command has exited (see Terminal.run). */
const EXIT_REPORT = /^EXIT=(\d+)\nTTY-(RESTORED|CHANGED)$/m;

/** How a command run in the terminal ended. */
export interface TerminalExit {
  /** The screen's lines above the exit report, trailing spaces cut. */
  lines: string[];
  exit: number;
  /** The terminal's settings (`stty -g`) after the command are the ones it started with. */
  restored: boolean;
}

/** One private tmux server with one session. */
export class Terminal {
  readonly socket = `meridian-term-${process.pid}-${++sessions}`;
  /** The session's pane, for raw tmux commands (`t.tmux('display', '-p', '-t', t.target, ...)`). */
  readonly target = 't';

  /** Run one tmux command on this terminal's server; its stdout. */
  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { env: { ...cleanEnv(), TERM: 'xterm-256color', LANG: 'C.UTF-8' }, encoding: 'utf8' });
  }

  /**
   * Run `telemetry ...args` on a width x height terminal (default 100x30) with TERM `term`
   * (default xterm-256color) and `env` set for it only. Ctrl-C reaches the command (the
   * shell around it survives it, and does not echo `^C`). When the command exits, the pane
   * says `EXIT=<code>`, then `TTY-RESTORED` when `stty -g` is what it was before the command
   * (else `TTY-CHANGED`), and stays open so the screen can still be read.
   */
  run(args: string[], opts: { env?: Record<string, string>; width?: number; height?: number; term?: string } = {}): void {
    const env = Object.entries({ TERM: opts.term ?? 'xterm-256color', LANG: 'C.UTF-8', NCURSES_NO_UTF8_ACS: '1', ...opts.env })
      .map(([k, v]) => `${k}=${quote(v)}`).join(' ');
    const script = `trap 'true' INT; stty -echoctl; B=$(stty -g); `
      + `${env} ${quote(process.execPath)} ${quote(TELEMETRY_BIN)} ${args.map(quote).join(' ')} 2>/dev/null; E=$?; `
      + `if [ "$(stty -g)" = "$B" ]; then T=TTY-RESTORED; else T=TTY-CHANGED; fi; printf '\\rEXIT=%s\\r\\n%s\\r\\n' "$E" "$T"; exec cat`;
    this.tmux('-u', '-f', '/dev/null', 'new-session', '-d', '-s', this.target, '-x', String(opts.width ?? 100), '-y', String(opts.height ?? 30),
      'sh', '-c', script, ';', 'set-option', '-g', 'status', 'off');
  }

  /** The screen as text; with `escapes`, with its colour and attribute sequences. */
  screen(escapes = false): string {
    return this.tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', this.target);
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.target, ...keys);
  }

  /** Resize the terminal (the command gets SIGWINCH). */
  resize(width: number, height: number): void {
    this.tmux('resize-window', '-t', this.target, '-x', String(width), '-y', String(height));
  }

  /** A tmux format for the pane, e.g. `#{alternate_on}`. */
  display(format: string): string {
    return this.tmux('display-message', '-p', '-t', this.target, format).trimEnd();
  }

  /** Poll the screen until `ok` holds; throw with the last screen at the deadline. */
  async waitFor(what: string, ok: (screen: string) => boolean, deadlineMs = 15_000): Promise<string> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const screen = this.screen();
      if (ok(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Once the command has exited: the lines above the exit report, its exit code, whether the terminal was restored. */
  async output(): Promise<TerminalExit> {
    const screen = await this.waitFor('the command to exit', (s) => EXIT_REPORT.test(s));
    const lines = screen.split('\n').map((l) => l.trimEnd());
    const at = lines.findIndex((l) => /^EXIT=\d+$/.test(l));
    const [, exit, tty] = EXIT_REPORT.exec(screen)!;
    return { lines: lines.slice(0, at), exit: Number(exit), restored: tty === 'RESTORED' };
  }

  /** Stop the tmux server and remove its socket file (kill-server leaves it behind). */
  kill(): void {
    try {
      const socketPath = this.tmux('display-message', '-p', '#{socket_path}').trim();
      this.tmux('kill-server');
      fs.rmSync(socketPath, { force: true });
    } catch { /* already gone */ }
  }
}
