import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { execa, type Result, type ResultPromise } from 'execa';
import { TelemetryClient } from '../client/client.js';
import { hostPort, resolveDaemonConfig, type DaemonConfig } from '../lib/config.js';
import { settingsArgv, type DaemonFlags } from '../lib/settings.js';
import type { StatusAnswer } from '../lib/wire.js';
import { startFailureReason, TelemetryStartError } from './launch-failure.js';
import { DAEMON_NODE_FLAGS } from './node-flags.js';
import { makeDirectory } from '../lib/directories.js';

// The launcher: `meridian telemetry run` as a child in its own session, logging to a file,
// and the wait until it answers. `telemetry run --detach` and library callers share it.

/**
 * Options of startTelemetryServer: the daemon's settings as `telemetry run` takes them (one
 * per row of lib/settings.ts, camelCase: `siteDir`, `maxAge`, `allowedHosts`...), and the
 * launcher's own. Unset settings resolve like `telemetry run` (env, then default). The token
 * is handed to the child in its environment, never on its command line.
 */
export interface TelemetryServerOptions extends DaemonFlags {
  /** Spawn at once (default true); when false, call `start()` later. */
  autoStart?: boolean;
  /** Forwarding: a TOML config file and URLs (docs/forwarding.md). */
  config?: string;
  forward?: readonly string[];
  /** Where the daemon logs (reopened on SIGHUP) and its stdout and stderr are appended; default `<site_dir>/.meridian/daemon.log`. */
  logFile?: string;
  /** The environment settings default from and the child runs with (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The built CLI next to this module (dist/launcher/launcher.js -> dist/cli/meridian.js). */
const MERIDIAN_JS = fileURLToPath(new URL('../cli/meridian.js', import.meta.url));

/** Start the telemetry daemon as a background child (unless `autoStart` is false); see docs/cli.md. */
export function startTelemetryServer(options: TelemetryServerOptions = {}): TelemetryServer {
  const server = new TelemetryServer(options);
  if (options.autoStart ?? true) server.start();
  return server;
}

/** A daemon child process: its resolved settings, and once started, the execa child. */
export class TelemetryServer {
  /** The settings the child runs with, resolved (bad values throw ConfigError here). */
  readonly config: DaemonConfig;
  /** `http://host:port`. */
  readonly url: string;
  readonly logFile: string;
  /** What is spawned: node, then the arguments. */
  readonly command: string = process.execPath;
  readonly args: readonly string[];
  private readonly env: Record<string, string | undefined>;
  private readonly defaultLog: boolean;
  private spawned: ResultPromise | undefined;
  private logOffset = 0;

  constructor(options: TelemetryServerOptions = {}) {
    const env = options.env ?? process.env;
    this.config = resolveDaemonConfig(options, env, os.homedir(), [], os.hostname());
    const c = this.config;
    this.url = `http://${hostPort(c.host, c.port)}`;
    this.defaultLog = options.logFile === undefined;
    this.logFile = path.resolve(options.logFile ?? path.join(c.siteDir, '.meridian', 'daemon.log'));
    // every setting as resolved here, from the settings table (the token travels in the environment)
    this.args = [...DAEMON_NODE_FLAGS, MERIDIAN_JS, 'telemetry', 'run', ...settingsArgv(c), '--log-file', this.logFile,
      ...(options.config !== undefined ? ['--config', path.resolve(options.config)] : []), ...(options.forward ?? []).flatMap((u) => ['--forward', u])];
    this.env = { ...env };
    if (c.token !== undefined) this.env.MERIDIAN_TELEMETRY_TOKEN = c.token;
  }

  /** The child (an execa subprocess, also a promise of its result) once started. */
  get child(): ResultPromise | undefined {
    return this.spawned;
  }

  get pid(): number | undefined {
    return this.spawned?.pid;
  }

  /**
   * Spawn the daemon (once; later calls return the same child): its own session, stdin closed,
   * output appended to the log. Like any child it keeps this process alive until it exits:
   * `child.unref()` lets this process end first (`telemetry run --detach` does).
   */
  start(): ResultPromise {
    if (this.spawned) return this.spawned;
    let fd: number;
    try {
      // one level at a time: a recursive mkdir spins forever under /proc
      makeDirectory(path.dirname(this.logFile));
      fd = fs.openSync(this.logFile, 'a');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new TelemetryStartError(this.defaultLog ? `site directory ${this.config.siteDir} is not usable (${code})`
        : `cannot open the log file ${this.logFile} (${code})`, { logFile: this.logFile, cause: error });
    }
    try {
      this.logOffset = fs.fstatSync(fd).size;
      const log = fd as unknown as 1; // execa hands any open fd to spawn; its types only name 1-9
      this.spawned = execa(this.command, [...this.args], {
        detached: true, stdin: 'ignore', stdout: log, stderr: log, ipc: false, reject: false, cleanup: false,
        env: this.env, extendEnv: false,
      });
    } finally {
      fs.closeSync(fd); // the child holds its own copy
    }
    return this.spawned;
  }

  /**
   * Wait until this child answers `/ready` (and `/status` gives its pid, not another daemon's on
   * the port). Rejects with TelemetryStartError carrying the reason from the log when the child
   * exits first, or when `timeout` seconds (default 10) pass; the child is left running then.
   */
  async ready(options: { timeout?: number } = {}): Promise<StatusAnswer> {
    const child = this.spawned;
    if (!child) throw new Error('the telemetry daemon is not started: call start() first');
    const timeoutMs = Math.round((options.timeout ?? 10) * 1000);
    const deadline = Date.now() + timeoutMs;
    let result: Result | undefined;
    const exited = child.then((r) => { result = r; });
    const client = new TelemetryClient({ baseUrl: this.url, token: this.config.token, timeout: 1, env: {} });
    for (;;) {
      const status = await Promise.race([this.probe(client, child.pid), exited.then(() => undefined)]);
      if (result) throw this.exitFailure(result);
      if (status) return status;
      if (Date.now() >= deadline) {
        throw new TelemetryStartError(`it did not answer /ready within ${timeoutMs / 1000}s`,
          { logFile: this.logFile, pid: child.pid, timedOut: true });
      }
      await Promise.race([delay(50), exited]);
    }
  }

  private async probe(client: TelemetryClient, pid: number | undefined): Promise<StatusAnswer | undefined> {
    try {
      await client.ready();
      const status = await client.status();
      return status.pid === pid ? status : undefined;
    } catch {
      return undefined; // not listening yet, or another process holds the port (its exit will tell)
    }
  }

  private exitFailure(result: Result): TelemetryStartError {
    let written = '';
    try {
      written = fs.readFileSync(this.logFile).subarray(this.logOffset).toString('utf8');
    } catch { /* the log is gone: say how it exited */ }
    const how = result.exitCode !== undefined ? `code ${result.exitCode}` : result.signal ? `signal ${result.signal}` : result.shortMessage;
    return new TelemetryStartError(startFailureReason(written) ?? `it exited with ${how}; see ${this.logFile}`,
      { logFile: this.logFile, pid: this.spawned?.pid, exitCode: result.exitCode });
  }
}
