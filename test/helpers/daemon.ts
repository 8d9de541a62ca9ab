import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveDaemonConfig, type DaemonFlags } from '../../lib/config.js';
import { createLogger } from '../../lib/log.js';
import { systemClock, type Clock } from '../../lib/time.js';
import type { SinkSpec } from '../../daemon/forward/sink.js';
import type { SafetySpec } from '../../daemon/safety/config.js';
import { resolveConfigSections } from '../../daemon/config-sections.js';
import { startDaemon, type RunningDaemon } from '../../daemon/server.js';
import type { StorageFs } from '../../daemon/storage/storage-fs.js';
import { removeDir, tempDir } from './tmp.js';

/** The repository root (tests run the built CLI from dist/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built `meridian` executable. */
export const MERIDIAN_BIN = path.join(ROOT, 'dist', 'cli', 'meridian.js');
/** The built `telemetry` executable. */
export const TELEMETRY_BIN = path.join(ROOT, 'dist', 'cli', 'telemetry.js');

/** A daemon running inside the test process on an ephemeral loopback port. */
export interface TestDaemon {
  daemon: RunningDaemon;
  url: string;
  port: number;
  siteDir: string;
  /** Log lines written so far. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * Start the real daemon in-process on 127.0.0.1 and an ephemeral port (`fs`: the storage
 * layer's writing calls, for tests that inject disk failures).
 */
export async function startTestDaemon(opts: {
  flags?: DaemonFlags; clock?: Clock; siteDir?: string; env?: Record<string, string>; fs?: StorageFs; forward?: SinkSpec[];
  /** How often the daemon looks for types turning stale (ms; default 1000, 0: only at start). */
  freshnessIntervalMs?: number;
  /** The chunk size (characters) of GET /current and the snapshot: small to test the chunked path. */
  viewChunkChars?: number;
  /** This machine's names as the daemon's edge would find them (none by default). */
  machineNames?: readonly string[];
  /** The config file's `[safety]` section, checked (daemon/safety/config.ts resolveSafety). */
  safety?: SafetySpec;
  /** How often the safety verdict judges every rule again (ms; default 1000, 0: only on readings and timers). */
  safetyIntervalMs?: number;
  /** A config file's text (TOML: [[sink]], [[alarm]], [[notify]], [safety], [conditions], [alpaca]), checked as `--config` is; its sinks come after `forward`. */
  config?: string;
  /** How often the view is snapshotted when it changed (ms; default 0: at start and close only). */
  snapshotIntervalMs?: number;
} = {}): Promise<TestDaemon> {
  const siteDir = opts.siteDir ?? tempDir();
  const config = { ...resolveDaemonConfig({ host: '127.0.0.1', siteDir, ...opts.flags }, opts.env ?? {}, siteDir, opts.machineNames), port: 0 };
  const logs: string[] = [];
  const clock = opts.clock ?? systemClock;
  const logger = createLogger((line) => logs.push(line.trimEnd()), 'debug', () => clock.now());
  const sections = opts.config === undefined ? undefined : resolveConfigSections({ configText: opts.config, configFile: 'test.toml' }, opts.env ?? {});
  const forward = [...(opts.forward ?? []), ...(sections?.forward ?? [])];
  const daemon = await startDaemon(config, { clock, logger, snapshotIntervalMs: opts.snapshotIntervalMs ?? 0, fs: opts.fs, forward, alarms: sections?.alarms, freshnessIntervalMs: opts.freshnessIntervalMs,
    viewChunkChars: opts.viewChunkChars, safety: opts.safety ?? sections?.safety, safetyIntervalMs: opts.safetyIntervalMs,
    conditions: sections?.conditions, boltwood: sections?.boltwood, alpaca: sections?.alpaca,
  });
  return { daemon, url: `http://127.0.0.1:${daemon.port}`, port: daemon.port, siteDir, logs, close: () => daemon.close() };
}

/** Run `fn` against a fresh in-process daemon (startTestDaemon), then close it and remove its site directory. */
export async function withTestDaemon(opts: Parameters<typeof startTestDaemon>[0], fn: (d: TestDaemon) => Promise<void>): Promise<void> {
  const d = await startTestDaemon(opts);
  try {
    await fn(d);
  } finally {
    await d.close();
    removeDir(d.siteDir);
  }
}

/** A port that was free a moment ago (bind port 0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A daemon running as a child process through the real CLI. */
export interface ChildDaemon {
  child: ChildProcess;
  url: string;
  port: number;
  siteDir: string;
  /** Everything the daemon wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
}

/**
 * Start `meridian telemetry run` as a child on 127.0.0.1 and a free port; resolves once it
 * logs that it is listening (no sleeps), rejects with its stderr if it exits first. With
 * `asExecutable` the built file is executed itself (its shebang picks node and its flags)
 * instead of being handed to this node.
 */
export async function spawnDaemon(opts: { siteDir?: string; args?: string[]; env?: Record<string, string>; port?: number; asExecutable?: boolean } = {}): Promise<ChildDaemon> {
  const siteDir = opts.siteDir ?? tempDir();
  for (let attempt = 0; ; attempt++) {
    const port = opts.port ?? await freePort();
    try {
      return await spawnOnce(siteDir, port, opts.args ?? [], opts.env ?? {}, opts.asExecutable === true);
    } catch (error) {
      // another process took the free port in between: try another one
      if (opts.port === undefined && attempt < 3 && /already in use/.test(String(error))) continue;
      throw error;
    }
  }
}

function spawnOnce(siteDir: string, port: number, args: string[], env: Record<string, string>, asExecutable: boolean): Promise<ChildDaemon> {
  const argv = [MERIDIAN_BIN, 'telemetry', 'run', '--host', '127.0.0.1', '--port', String(port), '--site-dir', siteDir, ...args];
  const child = spawn(asExecutable ? argv[0]! : process.execPath, asExecutable ? argv.slice(1) : argv, {
    env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (/listening on/.test(err)) {
        resolve({ child, url: `http://127.0.0.1:${port}`, port, siteDir, stderr: () => err, exited });
      }
    });
    void exited.then((code) => reject(new Error(`daemon exited (${code}) before listening:\n${err}`)));
  });
}

/** The environment without any MERIDIAN_* or PANOPTES_TELEMETRY_* variables of the developer's shell. */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('MERIDIAN_') && !k.startsWith('PANOPTES_TELEMETRY_') && k !== 'NO_COLOR') env[k] = v;
  }
  return env;
}
