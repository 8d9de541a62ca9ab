import { spawn } from 'node:child_process';
import { cleanEnv, TELEMETRY_BIN } from './daemon.js';

// The built CLI on a pseudo-terminal (util-linux `script`), its output as the raw bytes a
// terminal would receive (no newline translation), for asserting which escapes reach it.
// tmux (helpers/tmux.ts) shows the screen instead: it obeys the escapes this one catches.

/** How a command run on a pseudo-terminal ended: its exit code and every byte it wrote there. */
export interface RawTtyRun {
  code: number | undefined;
  bytes: string;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Run `telemetry ...args` with stdin, stdout and stderr on one pseudo-terminal (with
 * `pipeStdout`, stdout into `cat`, so only stderr is the terminal's), `env` added to a clean one.
 */
export function rawTty(args: string[], opts: { env?: Record<string, string>; pipeStdout?: boolean } = {}): Promise<RawTtyRun> {
  const command = `stty -onlcr; ${[process.execPath, TELEMETRY_BIN, ...args].map(quote).join(' ')}${opts.pipeStdout ? ' | cat' : ''}`;
  // FORCE_COLOR (set by some runners) would override NO_COLOR: a terminal's own settings only
  const env: Record<string, string> = { ...cleanEnv(), TERM: 'xterm-256color', LANG: 'C.UTF-8', ...opts.env };
  delete env.FORCE_COLOR;
  const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`telemetry ${args.join(' ')} did not finish in time`)); }, 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? undefined, bytes: Buffer.concat(chunks).toString('utf8') });
    });
  });
}
