import dns from 'node:dns/promises';
import fs from 'node:fs';
import os from 'node:os';
import { resolveDaemonConfig, type DaemonFlags } from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { createLogger } from '../lib/log.js';
import { resolveConfigSections } from './config-sections.js';
import { systemClock } from '../lib/time.js';
import { LogFile } from './log-file.js';
import { LogDrops, stderrWriter } from './log-stderr.js';
import { machineNames, type MachineProbe } from './machine-names.js';
import { checkBoltwoodPlace, realPathOf } from './outputs/boltwood-place.js';
import { startDaemon, StartupError, type RunningDaemon } from './server.js';

// The daemon's entry: reads the environment, logs to stderr (or its log file, reopened on
// SIGHUP), stops cleanly on signals.

/** The forwarding flags: `--config FILE` and `--forward URL` (repeatable). */
export interface ForwardFlags {
  config?: string;
  forward?: readonly string[];
}

/**
 * Run the daemon in the foreground until SIGINT, SIGTERM or /shutdown; resolves the exit code
 * (1 when it cannot start). A bad setting throws ConfigError (the CLI's exit 2).
 */
export async function runDaemonForeground(flags: DaemonFlags & ForwardFlags, options: { logFile?: string } = {}): Promise<number> {
  const config = resolveDaemonConfig(flags, process.env, os.homedir(), await machineNames(SYSTEM), os.hostname());
  const { forward, alarms, safety, conditions, boltwood, alpaca } = resolveConfigSections({ configFile: flags.config, configText: readConfig(flags.config), forward: flags.forward }, process.env);
  if (boltwood) {
    // the site directory's half is startDaemon's (it owns the directory); the files named here only the edge knows
    checkBoltwoodPlace(realPathOf(boltwood.path), { configFile: flags.config && realPathOf(flags.config),
      logFile: options.logFile && realPathOf(options.logFile) }, boltwood.where);
  }
  let logFile: LogFile | undefined;
  const drops = new LogDrops(Date.now);
  if (options.logFile !== undefined) {
    try {
      logFile = new LogFile(options.logFile, drops);
    } catch (error) {
      process.stderr.write(`cannot open the log file ${options.logFile} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})\n`);
      return 1;
    }
  }
  // stderr on a full disk or a closed pipe: lines are dropped and counted (/status), the daemon goes on
  const write = logFile ? (line: string) => logFile.write(line) : stderrWriter(drops);
  const logger = createLogger(write, config.verbose ? 'debug' : 'info', Date.now, config.logFormat);
  // logrotate moves the file away and sends SIGHUP: go on in a new file of the same name
  const onHangup = () => {
    const failure = logFile?.reopen();
    if (failure) logger.error(failure); else logger.info(`log file reopened (SIGHUP): ${logFile?.path}`);
  };
  if (logFile) process.on('SIGHUP', onHangup);
  // the handlers are in place before the daemon says it is listening: a SIGTERM right after
  // that line (a supervisor, a test) is a clean stop, never the default death by signal
  let daemon: RunningDaemon | undefined;
  let stopRequested = false;
  // a second signal (Ctrl-C twice) cuts the wait for requests in flight short
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info(stopRequested ? `${signal} received again; closing every connection now` : `${signal} received; stopping`);
    void daemon?.close({ now: stopRequested });
    stopRequested = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    daemon = await startDaemon(config, { clock: systemClock, logger, forward, alarms, safety, conditions, boltwood, alpaca, logDropped: () => drops.status() });
    if (stopRequested) void daemon.close();
    await daemon.closed;
    return 0;
  } catch (error) {
    if (error instanceof StartupError) {
      logger.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onHangup);
    logFile?.close();
  }
}

/** The real system's names: os and dns (getaddrinfo and getnameinfo, as /etc/hosts and DNS answer). */
const SYSTEM: MachineProbe = {
  hostname: () => os.hostname(),
  networkInterfaces: () => os.networkInterfaces(),
  lookup: async (name) => (await dns.lookup(name, { all: true })).map((a) => a.address),
  reverse: async (address) => (await dns.lookupService(address, 0)).hostname,
};

// a forwarding config is a few sinks: a larger file is not one (and /dev/zero would never end)
const MAX_CONFIG_BYTES = 1024 * 1024;

function readConfig(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new ConfigError('--config', 'a readable file', `${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  // a FIFO or a device is never opened: the read could wait or run forever
  if (!stat.isFile() && !stat.isDirectory()) throw new ConfigError('--config', 'a regular file', `${file} (not a regular file)`);
  if (stat.size > MAX_CONFIG_BYTES) throw new ConfigError('--config', `a file of at most ${MAX_CONFIG_BYTES} bytes`, `${file} (${stat.size} bytes)`);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError('--config', 'a readable file', `${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

