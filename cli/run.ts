import { TelemetryStartError } from '../launcher/launch-failure.js';
import type { CliIo } from './io.js';
import { listOption, noExtraArguments, requireWith, secondsOption, switchOption, textOption, type ParsedOptions } from './options.js';

// `telemetry run`: the daemon in the foreground, or with --detach in the background through
// the launcher (the same code path as startTelemetryServer).

/** Run the daemon: in the foreground until stopped, or detached (exit 0 once it answers /ready). */
export async function runRun(opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  const flags = {
    host: textOption(opts, 'host'), port: textOption(opts, 'port'), siteDir: textOption(opts, 'site-dir'),
    token: textOption(opts, 'token'), fsync: textOption(opts, 'fsync'), maxBody: textOption(opts, 'max-body'),
    shutdownTimeout: textOption(opts, 'shutdown-timeout'),
    maxAge: textOption(opts, 'max-age'),
    verbose: switchOption(opts, 'verbose'), accessLogs: switchOption(opts, 'access-logs'),
    logFormat: textOption(opts, 'log-format'), compressAfter: textOption(opts, 'compress-after'), retain: textOption(opts, 'retain'),
    allowUnauthenticated: switchOption(opts, 'allow-unauthenticated'),
  };
  const forward = { config: textOption(opts, 'config'), forward: listOption(opts, 'forward') };
  if (!switchOption(opts, 'detach')) {
    requireWith(opts, ['timeout'], 'detach');
    // each path loads only its own modules: the launcher (execa, got) would cost the
    // foreground daemon ~19 MiB of resident memory for the whole night
    const { runDaemonForeground } = await import('../daemon/main.js');
    return runDaemonForeground({ ...flags, ...forward }, { logFile: textOption(opts, 'log-file') });
  }
  const { startTelemetryServer } = await import('../launcher/launcher.js');
  const timeoutMs = secondsOption(opts, 'timeout', 10_000);
  // the detached child hears of --allow-unauthenticated through its environment
  const env = flags.allowUnauthenticated ? { ...io.env, MERIDIAN_TELEMETRY_ALLOW_UNAUTHENTICATED: '1' } : io.env;
  const server = startTelemetryServer({ ...flags, ...forward, logFile: textOption(opts, 'log-file'), env, autoStart: false });
  const child = server.start();
  try {
    const status = await server.ready({ timeout: timeoutMs / 1000 });
    child.unref(); // the daemon runs on; this command ends
    io.out(`telemetry daemon started: pid ${status.pid}, ${server.url}, log ${server.logFile}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof TelemetryStartError && error.timedOut)) throw error;
    // half-started is the worst state for a cron job: stop it, and say so
    child.kill('SIGTERM');
    await child;
    throw new TelemetryStartError(`${error.reason}; stopped it (pid ${error.pid}, log ${server.logFile})`,
      { logFile: server.logFile, pid: error.pid, timedOut: true });
  }
}
