import { dispatch } from './dispatch.js';
import type { CliIo } from './io.js';

// The executables' shared edge: argv, environment, clock, terminals, received signals and
// the exit code are read or set here and nowhere else in cli/.

/** Run the command line of executable `name` (commands prefixed with `prefix`). */
export function runCli(name: string, prefix: string): void {
  const stop = new AbortController();
  // the reader of stdout has gone (`| head -1`): stop quietly instead of crashing on EPIPE
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') stop.abort();
  });
  let watching = false;
  const io: CliIo = {
    name, prefix, env: process.env,
    now: () => Date.now(),
    out: (text) => { if (!process.stdout.destroyed) process.stdout.write(text); },
    err: (text) => { process.stderr.write(text); },
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    columns: process.stdout.columns || 80,
    color: process.stdout.isTTY === true && (process.env.NO_COLOR ?? '') === '' && process.env.TERM !== 'dumb',
    stopSignal: () => {
      if (!watching) {
        watching = true;
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
      }
      return stop.signal;
    },
  };
  void dispatch(process.argv.slice(2), io).then((code) => { process.exitCode = code; });
}
