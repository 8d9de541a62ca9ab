import { TelemetryStartError } from '../launcher/launch-failure.js';
import { DAEMON_SETTINGS, type DaemonFlags } from '../lib/settings.js';
import type { CliIo } from './io.js';
import { listOption, noExtraArguments, requireWith, secondsOption, switchOption, textOption, type ParsedOptions } from './options.js';

// `telemetry run`: the daemon in the foreground, or with --detach in the background through
// the launcher (the same code path as startTelemetryServer).

/** Run the daemon: in the foreground until stopped, or detached (exit 0 once it answers /ready). */
export async function runRun(opts: ParsedOptions, io: CliIo): Promise<number> {
  noExtraArguments(opts);
  // one flag per row of the settings table (lib/settings.ts)
  const flags: DaemonFlags = Object.fromEntries(DAEMON_SETTINGS.map((s) =>
    [s.key, s.kind === 'switch' ? switchOption(opts, s.flag.slice(2)) : textOption(opts, s.flag.slice(2))]));
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
  const server = startTelemetryServer({ ...flags, ...forward, logFile: textOption(opts, 'log-file'), env: io.env, autoStart: false });
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
