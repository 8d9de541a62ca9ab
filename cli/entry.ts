import { buildProgram } from './program.js';

// The executables' shared entry: parse argv, run the command, set the exit code.

/** Run the command line of executable `name` (commands prefixed with `prefix`). */
export function runCli(name: string, prefix: string): void {
  const prog = buildProgram(name, prefix, (code) => { process.exitCode = code; });
  prog.parse(process.argv, {
    unknown: (flag: string) => `Unknown option ${flag}`,
  });
}
