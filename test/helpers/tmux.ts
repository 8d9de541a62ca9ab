import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { cleanEnv, TELEMETRY_BIN } from './daemon.js';

// A real terminal for the CLI: a tmux server on a private socket, one session running one
// command line, the screen read with capture-pane. Waits poll the screen with a deadline.

let sessions = 0;

/** One private tmux server with one session. */
export class Terminal {
  readonly socket = `meridian-cli-${process.pid}-${++sessions}`;

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { env: { ...cleanEnv(), TERM: 'xterm-256color', LANG: 'C.UTF-8' }, encoding: 'utf8' });
  }

  /**
   * Run `telemetry ...args` on a width x height terminal, with `env` set for it only. When it
   * exits, `EXIT=<code>` is printed and the pane stays open (so the screen can still be read).
   */
  run(args: string[], opts: { env?: Record<string, string>; width?: number; height?: number } = {}): void {
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const env = Object.entries({ TERM: 'xterm-256color', LANG: 'C.UTF-8', NCURSES_NO_UTF8_ACS: '1', ...opts.env })
      .map(([k, v]) => `${k}=${quote(v)}`).join(' ');
    const script = `trap 'true' INT; stty -echoctl; ${env} ${quote(process.execPath)} ${quote(TELEMETRY_BIN)} ${args.map(quote).join(' ')} 2>/dev/null; echo "EXIT=$?"; exec cat`;
    this.tmux('-u', '-f', '/dev/null', 'new-session', '-d', '-s', 't', '-x', String(opts.width ?? 100), '-y', String(opts.height ?? 30),
      'sh', '-c', script, ';', 'set-option', '-g', 'status', 'off');
  }

  /** The screen as text; with `escapes`, with its colour and attribute sequences. */
  screen(escapes = false): string {
    return this.tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', 't');
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 't', ...keys);
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

  /** The screen's lines up to the `EXIT=` line, trailing spaces cut, once the command has exited. */
  async output(): Promise<{ lines: string[]; exit: number }> {
    const screen = await this.waitFor('the command to exit', (s) => /^EXIT=\d+$/m.test(s));
    const lines = screen.split('\n').map((l) => l.trimEnd());
    const at = lines.findIndex((l) => /^EXIT=\d+$/.test(l));
    return { lines: lines.slice(0, at), exit: Number(lines[at]!.slice(5)) };
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
