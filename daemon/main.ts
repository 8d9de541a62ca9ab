import os from 'node:os';
import { resolveDaemonConfig, type DaemonFlags } from '../lib/config.js';
import { createLogger } from '../lib/log.js';
import { systemClock } from '../lib/time.js';
import { startDaemon, StartupError } from './server.js';

// The daemon's entry: reads the environment, logs to stderr, stops cleanly on signals.

/**
 * Run the daemon in the foreground until SIGINT, SIGTERM or /shutdown; resolves the exit code
 * (1 when it cannot start). A bad setting throws ConfigError (the CLI's exit 2).
 */
export async function runDaemonForeground(flags: DaemonFlags): Promise<number> {
  const config = resolveDaemonConfig(flags, process.env, os.homedir());
  const logger = createLogger((line) => process.stderr.write(line), config.verbose ? 'debug' : 'info');
  let daemon;
  try {
    daemon = await startDaemon(config, { clock: systemClock, logger });
  } catch (error) {
    if (error instanceof StartupError) {
      logger.error(error.message);
      return 1;
    }
    throw error;
  }
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info(`${signal} received; stopping`);
    void daemon.close();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  await daemon.closed;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return 0;
}
