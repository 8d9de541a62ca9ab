import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { cleanEnv, MERIDIAN_BIN, TELEMETRY_BIN } from './daemon.js';

// The built CLI as a child process: run a command to its end, or keep one running (piped
// --follow) and wait on what it prints. Every wait has a deadline; nothing sleeps.

/** How a finished command ended. */
export interface CliRun {
  code: number | undefined;
  stdout: string;
  stderr: string;
}

/** Run `telemetry ...args` (or `meridian ...args` with `bin: 'meridian'`) to its end, with a clean environment plus `env`. */
export function cli(args: string[], opts: { env?: Record<string, string>; bin?: 'telemetry' | 'meridian'; timeoutMs?: number } = {}): Promise<CliRun> {
  const bin = opts.bin === 'meridian' ? MERIDIAN_BIN : TELEMETRY_BIN;
  const child = spawn(process.execPath, [bin, ...args], { env: { ...cleanEnv(), ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(bin)} ${args.join(' ')} did not finish in time:\n${stderr}`));
    }, opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? undefined, stdout, stderr });
    });
  });
}

/** A command left running with its output piped to the test. */
export class RunningCli {
  readonly child: ChildProcess;
  out = '';
  err = '';
  readonly exited: Promise<number | string>;
  private waiters: Array<() => void> = [];

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [TELEMETRY_BIN, ...args], { env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (c: Buffer) => { this.out += c.toString(); this.wake(); });
    this.child.stderr!.on('data', (c: Buffer) => { this.err += c.toString(); this.wake(); });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => { resolve(code ?? signal ?? -1); this.wake(); }));
  }

  /** stdout's lines so far. */
  lines(): string[] {
    return this.out.split('\n').filter((l) => l !== '');
  }

  /** Resolve once `ok()` holds (checked on every output and at exit); fail at the deadline with what was printed. */
  async until(what: string, ok: () => boolean, deadlineMs = 15_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (!ok()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}\nstdout:\n${this.out}\nstderr:\n${this.err}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  }

  /** Stop it if it still runs. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** Whether process `pid` exists (kill 0 does not throw ESRCH). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Resolve once `pid` is gone for good (kill 0 throws ESRCH), polling until the deadline: a
 * detached daemon's parent has exited, so init collects it, and some inits take a second or two.
 */
export async function waitUntilGone(pid: number, deadlineMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** Kill a daemon a test started in the background, if it is still there (cleanup in `finally`). */
export function killDaemon(pid: number | undefined): void {
  if (pid !== undefined && processAlive(pid)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone in between */ }
  }
}

/** The pid in `telemetry daemon started: pid N, ...`. */
export function startedPid(stdout: string): number | undefined {
  const m = /^telemetry daemon started: pid (\d+),/.exec(stdout);
  return m ? Number(m[1]) : undefined;
}
